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

/** A stored blob whose bytes no longer hash to its name (disk corruption or tampering). */
export class BlobIntegrityError extends BaseError {
  override name = 'BlobIntegrityError'
  readonly hash: Hex
  readonly actual: Hex
  constructor(hash: Hex, actual: Hex, path: string) {
    super(`blob ${hash}: expected its sha256 to match, got ${actual}`, {details: `corrupt file: ${path}`})
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
