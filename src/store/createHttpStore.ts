import pRetry from 'p-retry'
import type {Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {canonicalJsonBytes} from './canonicalJson.js'
import {BlobIntegrityError, BlobNotFoundError, BlobStoreHttpError, BlobStoreUnreachableError, InvalidHashError, networkReason} from './errors.js'
import {parseJsonBlob} from './parseJsonBlob.js'
import {isHash, sha256Hex} from './sha256.js'
import type {BlobStore} from './types.js'

export type HttpStoreOptions = {
  /** Milliseconds one request may take, body included (default 120 000: a large checkpoint on a slow link). */
  timeoutMs?: number | undefined
  /** Attempts per request while the failure is transient (default 4): see {@link isTransientStatus}. */
  attempts?: number | undefined
  /** Milliseconds before the first retry, about doubled after each (default 250). */
  retryDelayMs?: number | undefined
  /**
   * The server's upload token (`store serve --token`), sent as `authorization: Bearer <token>` with each PUT.
   * Reads never send it: they need none, and a secret sent less often leaks less.
   */
  token?: string | undefined
}

/** True for a store location that names an HTTP(S) server rather than a folder. */
export function isStoreUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location)
}

/**
 * Statuses worth another try: 429 (the server is at its upload limit) and 5xx, a proxy or a restarting
 * server, except 507 (the store is full: it stays full until someone frees it) and 501 (never supported).
 */
export function isTransientStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501 && status !== 507)
}

type StoreAnswer = {status: number; bytes: Uint8Array; text: () => string; attempts: number}

/** Thrown inside the retried call so that p-retry tries again; carries the answer in case none comes better. */
class TransientAnswer extends Error {
  constructor(
    readonly answer: StoreAnswer,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`the blob store answered ${answer.status}`)
  }
}

/**
 * A {@link BlobStore} on a `gensyn store serve` server (docs/multi-host.md): GET/HEAD/PUT
 * `<url>/blobs/<64 hex digits>`. Every blob read is re-hashed here, whatever the server claims, so a
 * tampering server or proxy can at worst make a read fail ({@link BlobIntegrityError}), never feed wrong
 * bytes to training or verification. Requests are idempotent (content addressing), so transient failures
 * (the connection refused, reset or timed out; 429; 5xx but 501 and 507) are retried with exponential backoff
 * by p-retry, a bounded number of times, then reported in one line naming the URL.
 */
export function createHttpStore(url: string, options: HttpStoreOptions = {}): BlobStore {
  const base = parseStoreUrl(url)
  const timeoutMs = options.timeoutMs ?? 120_000
  const attempts = Math.max(1, options.attempts ?? 4)
  const retryDelayMs = options.retryDelayMs ?? 250
  const shown = base.replace(/\/$/, '')
  const blobUrl = (hash: Hex) => `${base}blobs/${hash.slice(2)}`
  const checked = (hash: Hex): Hex => {
    if (!isHash(hash)) throw new InvalidHashError(hash)
    return hash
  }
  const tries = (answer: StoreAnswer) => (answer.attempts > 1 ? ` after ${answer.attempts} attempts` : '')

  async function attempt(method: 'GET' | 'HEAD' | 'PUT', hash: Hex, body: Uint8Array | undefined, attemptNumber: number): Promise<StoreAnswer> {
    const headers: Record<string, string> = {}
    if (body) headers['content-type'] = 'application/octet-stream'
    if (method === 'PUT' && options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    const response = await fetch(blobUrl(hash), {method, body, headers, signal: AbortSignal.timeout(timeoutMs)})
    // Read whole, even an error's body: a connection dropped mid-body throws here, and is retried.
    const bytes = new Uint8Array(await response.arrayBuffer())
    const answer = {status: response.status, bytes, text: () => new TextDecoder().decode(bytes), attempts: attemptNumber}
    if (isTransientStatus(response.status)) throw new TransientAnswer(answer, retryAfterMs(response.headers.get('retry-after')))
    return answer
  }

  async function request(method: 'GET' | 'HEAD' | 'PUT', hash: Hex, body?: Uint8Array): Promise<StoreAnswer> {
    let made = 0
    try {
      return await pRetry(
        (attemptNumber) => {
          made = attemptNumber
          return attempt(method, hash, body, attemptNumber)
        },
        {
          retries: attempts - 1,
          minTimeout: retryDelayMs,
          factor: 2,
          randomize: true,
          maxTimeout: 10_000,
          shouldRetry: ({error}) => error instanceof TransientAnswer || (isConnectionFailure(error) && networkReason(error) !== 'ENOTFOUND'),
          // A 429 says how long the server wants: wait that (capped) on top of the backoff.
          onFailedAttempt: async ({error, retriesLeft}) => {
            if (retriesLeft > 0 && error instanceof TransientAnswer && error.retryAfterMs) await sleep(Math.min(error.retryAfterMs, 10_000))
          },
        },
      )
    } catch (error) {
      // Retries spent on a status: it is the server's last word, reported by the caller.
      if (error instanceof TransientAnswer) return error.answer
      if (isConnectionFailure(error)) throw new BlobStoreUnreachableError(shown, error, made)
      throw error
    }
  }

  async function get(hash: Hex): Promise<Uint8Array> {
    checked(hash)
    const response = await request('GET', hash)
    if (response.status === 404) throw new BlobNotFoundError(hash, shown)
    if (response.status !== 200) throw new BlobStoreHttpError(`GET blob ${hash} from ${shown}`, response.status, response.text(), tries(response))
    const actual = sha256Hex(response.bytes)
    if (actual !== hash) throw new BlobIntegrityError(hash, actual, blobUrl(hash))
    return response.bytes
  }

  async function put(bytes: Uint8Array): Promise<Hex> {
    const hash = sha256Hex(bytes)
    const response = await request('PUT', hash, bytes)
    if (response.status !== 200 && response.status !== 201) throw new BlobStoreHttpError(`PUT blob ${hash} to ${shown}`, response.status, response.text(), tries(response))
    return hash
  }

  return {
    get,
    put,
    async has(hash: Hex): Promise<boolean> {
      const response = await request('HEAD', checked(hash))
      if (response.status === 200) return true
      if (response.status === 404) return false
      throw new BlobStoreHttpError(`HEAD blob ${hash} on ${shown}`, response.status, '', tries(response))
    },
    putJson: (value) => put(canonicalJsonBytes(value)),
    getJson: async <T>(hash: Hex): Promise<T> => parseJsonBlob<T>(hash, await get(hash)),
  }
}

/**
 * A failure of the connection rather than an answer: fetch's "fetch failed" (refused, reset, DNS) or
 * "terminated" (dropped mid-body) TypeErrors, and the request timeout. All are retried but a name that does
 * not resolve (ENOTFOUND): that is a typo, not a hiccup, and is reported at once.
 */
function isConnectionFailure(error: unknown): error is Error {
  if (!(error instanceof Error)) return false
  if (error.name === 'TimeoutError') return true
  return error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated')
}

/** `retry-after` in seconds (the only form the store server sends), as milliseconds. */
function retryAfterMs(header: string | null): number | undefined {
  const seconds = header === null ? Number.NaN : Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The store URL with exactly one trailing slash, so `blobs/<hex>` resolves below any path prefix. */
function parseStoreUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidInputError(`--store: expected a folder or an http(s):// URL, got ${url}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidInputError(`--store: expected a folder or an http(s):// URL, got ${url}`)
  }
  if (parsed.search || parsed.hash) throw new InvalidInputError(`--store: expected a URL without ?query or #fragment, got ${url}`)
  return parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`
}
