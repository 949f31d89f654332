import {BaseError, type BaseErrorParameters} from '../../errors/base.js'

/** A backend that cannot be used in this process (package missing, wrong wasm variant already loaded). */
export class BackendUnavailableError extends BaseError {
  override name = 'BackendUnavailableError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'checkpoint-format.md', ...parameters})
  }
}
