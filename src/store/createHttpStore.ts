import type {Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {canonicalJsonBytes} from './canonicalJson.js'
import {BlobIntegrityError, BlobNotFoundError, BlobStoreHttpError, BlobStoreUnreachableError, InvalidHashError} from './errors.js'
import {parseJsonBlob} from './parseJsonBlob.js'
import {isHash, sha256Hex} from './sha256.js'
import type {BlobStore} from './types.js'

export type HttpStoreOptions = {
  /** Milliseconds one request may take, body included (default 120 000: a large checkpoint on a slow link). */
  timeoutMs?: number | undefined
  /** Attempts per request when the server cannot be reached or answers 502/503/504 (default 4). */
  attempts?: number | undefined
  /** Milliseconds before the first retry, doubled after each (default 250). */
  retryDelayMs?: number | undefined
}

/** True for a store location that names an HTTP(S) server rather than a folder. */
export function isStoreUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location)
}

/**
 * A {@link BlobStore} on a `gensyn store serve` server (docs/multi-host.md): GET/HEAD/PUT
 * `<url>/blobs/<64 hex digits>`. Every blob read is re-hashed here, whatever the server claims, so a
 * tampering server or proxy can at worst make a read fail ({@link BlobIntegrityError}), never feed wrong
 * bytes to training or verification. Requests are idempotent (content addressing), so transient network
 * failures are retried.
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

  async function request(method: 'GET' | 'HEAD' | 'PUT', hash: Hex, body?: Uint8Array): Promise<{status: number; bytes: Uint8Array; text: () => string}> {
    let lastError: unknown
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 2)))
      let response: Response
      try {
        response = await fetch(blobUrl(hash), {
          method,
          body,
          headers: body ? {'content-type': 'application/octet-stream'} : undefined,
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        lastError = error
        continue
      }
      // A proxy or a restarting server: worth another try. Anything else is the server's final word.
      if ([502, 503, 504].includes(response.status) && attempt < attempts) {
        await response.arrayBuffer().catch(() => undefined)
        continue
      }
      let buffer: ArrayBuffer
      try {
        buffer = await response.arrayBuffer()
      } catch (error) {
        // The connection dropped mid-body.
        lastError = error
        continue
      }
      const bytes = new Uint8Array(buffer)
      return {status: response.status, bytes, text: () => new TextDecoder().decode(bytes)}
    }
    throw new BlobStoreUnreachableError(shown, lastError)
  }

  async function get(hash: Hex): Promise<Uint8Array> {
    checked(hash)
    const response = await request('GET', hash)
    if (response.status === 404) throw new BlobNotFoundError(hash, shown)
    if (response.status !== 200) throw new BlobStoreHttpError(`GET blob ${hash} from ${shown}`, response.status, response.text())
    const actual = sha256Hex(response.bytes)
    if (actual !== hash) throw new BlobIntegrityError(hash, actual, blobUrl(hash))
    return response.bytes
  }

  async function put(bytes: Uint8Array): Promise<Hex> {
    const hash = sha256Hex(bytes)
    const response = await request('PUT', hash, bytes)
    if (response.status !== 200 && response.status !== 201) throw new BlobStoreHttpError(`PUT blob ${hash} to ${shown}`, response.status, response.text())
    return hash
  }

  return {
    get,
    put,
    async has(hash: Hex): Promise<boolean> {
      const response = await request('HEAD', checked(hash))
      if (response.status === 200) return true
      if (response.status === 404) return false
      throw new BlobStoreHttpError(`HEAD blob ${hash} on ${shown}`, response.status, '')
    },
    putJson: (value) => put(canonicalJsonBytes(value)),
    getJson: async <T>(hash: Hex): Promise<T> => parseJsonBlob<T>(hash, await get(hash)),
  }
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
