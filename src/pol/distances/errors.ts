import {BaseError, InvalidInputError} from '../../errors/base.js'

/** Two checkpoints that cannot be compared (other tensors, shapes or optimizer). */
export class DistanceError extends BaseError {
  override name = 'DistanceError'
}

/** Distance thresholds that are malformed or do not fit the job (bad input: exit code 2). */
export class ThresholdsError extends InvalidInputError {
  override name = 'ThresholdsError'
  constructor(shortMessage: string, parameters: {details?: string; cause?: unknown} = {}) {
    super(shortMessage, {docsPath: 'verification.md', ...parameters})
  }
}
