import type {Hex} from 'viem'
import {BaseError} from '../errors/base.js'

/** No blob with this hash in the store. */
export class BlobNotFoundError extends BaseError {
  override name = 'BlobNotFoundError'
  readonly hash: Hex
  constructor(hash: Hex, where: string) {
    super(`blob not found: ${hash} (store ${where})`)
    this.hash = hash
  }
}

/** A blob whose bytes do not hash to its name (disk corruption, or tampering on a server or in transit). */
export class BlobIntegrityError extends BaseError {
  override name = 'BlobIntegrityError'
  readonly hash: Hex
  readonly actual: Hex
  constructor(hash: Hex, actual: Hex, path: string) {
    super(`blob ${hash}: expected its sha256 to match, got ${actual}`, {details: `corrupt copy at ${path}`})
    this.hash = hash
    this.actual = actual
  }
}

/** A string passed as a blob hash that is not 0x + 64 lowercase hex digits. */
export class InvalidHashError extends BaseError {
  override name = 'InvalidHashError'
  constructor(value: unknown, what = 'hash') {
    super(`${what}: expected 0x followed by 64 lowercase hex digits, got ${JSON.stringify(value)}`)
  }
}

/** A JSON blob that does not parse. */
export class BlobJsonError extends BaseError {
  override name = 'BlobJsonError'
}

/** An HTTP blob store that does not answer (refused, reset, DNS, timeout), after retries. */
export class BlobStoreUnreachableError extends BaseError {
  override name = 'BlobStoreUnreachableError'
  readonly url: string
  readonly attempts: number
  constructor(url: string, cause: unknown, attempts = 1) {
    const reason = cause instanceof Error ? networkReason(cause) : String(cause)
    super(`blob store ${url}: unreachable (${reason})${attempts > 1 ? ` after ${attempts} attempts` : ''}`, {
      details: 'is `gensyn store serve` running there, and is --store the URL it printed?',
      docsPath: 'multi-host.md',
      cause,
    })
    this.url = url
    this.attempts = attempts
  }
}

/** An HTTP blob store answered with a status the client cannot use (a refused upload, a server error). */
export class BlobStoreHttpError extends BaseError {
  override name = 'BlobStoreHttpError'
  readonly status: number
  /** `suffix` follows the server's reason, e.g. " after 4 attempts". */
  constructor(what: string, status: number, body: string, suffix = '') {
    const reason = body.trim().split('\n')[0]?.slice(0, 200)
    super(`${what}: the blob store answered ${status}${reason ? ` (${reason})` : ''}${suffix}`, {
      details: status === 401 ? 'pass the token `gensyn store serve` was started with: --store-token, GENSYN_STORE_TOKEN or the network file\'s storeToken' : undefined,
      docsPath: status === 401 || status === 413 || status === 507 ? 'multi-host.md' : undefined,
    })
    this.status = status
  }
}

/** fetch() wraps the socket error ("fetch failed"): name the code underneath (ECONNREFUSED, ENOTFOUND, ...). */
export function networkReason(error: Error): string {
  const cause = error.cause as (Error & {code?: string}) | undefined
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out'
  return cause?.code ?? cause?.message ?? error.message
}

/**
 * The store server refuses a request (no token, too large, too busy, full, a body that does not hash to its
 * name): `status` is the HTTP answer and the message its one-line body.
 */
export class StoreRequestRejectedError extends BaseError {
  override name = 'StoreRequestRejectedError'
  readonly status: number
  /** Seconds a client should wait before trying again (sent as `retry-after`). */
  readonly retryAfterSeconds: number | undefined
  constructor(status: number, message: string, retryAfterSeconds?: number) {
    super(message)
    this.status = status
    this.retryAfterSeconds = retryAfterSeconds
  }
}
