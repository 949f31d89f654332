import {InvalidInputError} from '../errors/base.js'

/** A `--set` or `--sweep` the economics cannot use: an unknown parameter or a value out of its range (exit code 2). */
export class EconomicsInputError extends InvalidInputError {
  override name = 'EconomicsInputError'
  constructor(shortMessage: string, parameters: {details?: string; cause?: unknown} = {}) {
    super(shortMessage, {docsPath: 'economics.md', ...parameters})
  }
}
