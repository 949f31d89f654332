import {BaseError, type BaseErrorParameters} from '../errors/base.js'

/** An operator trace that cannot be built or read as asked (bad element index, unsupported dtype, a segment outside the proof). */
export class DisputeTraceError extends BaseError {
  override name = 'DisputeTraceError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'disputes.md', ...parameters})
  }
}

/** The test-only operator corruption could not be applied as described (never fired, wrong dtype, element out of range). */
export class OperatorCorruptionError extends BaseError {
  override name = 'OperatorCorruptionError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'disputes.md', ...parameters})
  }
}
