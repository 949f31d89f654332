import {BaseError, type BaseErrorParameters} from '../../errors/base.js'

/** Bytes that are not a canonical gensyn checkpoint (docs/checkpoint-format.md). */
export class CheckpointFormatError extends BaseError {
  override name = 'CheckpointFormatError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'checkpoint-format.md', ...parameters})
  }
}
