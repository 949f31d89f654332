import {BaseError} from '../../errors/base.js'

/** A proof bundle that cannot be read as one: missing files, a wrong type, a path escaping the bundle. Exit code 2. */
export class BundleError extends BaseError {
  override name = 'BundleError'
  constructor(shortMessage: string, parameters: {details?: string; cause?: unknown} = {}) {
    super(shortMessage, {...parameters, exitCode: 2, docsPath: 'proof-format.md'})
  }
}
