import {BaseError} from '../errors/base.js'

/** The proof names a runtime this verifier is not running (hashes would not be comparable). */
export class RuntimeMismatchError extends BaseError {
  override name = 'RuntimeMismatchError'
}

/** A segment index outside the proof, or a manifest the replay cannot use. */
export class ReplayError extends BaseError {
  override name = 'ReplayError'
}
