import {BaseError, type BaseErrorParameters} from '../../errors/base.js'

/** A job spec that cannot be read, parsed or validated. `details` lists every problem found. */
export class JobSpecError extends BaseError {
  override name = 'JobSpecError'
  /** Path of the first failing field, e.g. `model.layers[1].type` (empty for file/YAML problems). */
  readonly field: string | undefined
  constructor(shortMessage: string, parameters: BaseErrorParameters & {field?: string} = {}) {
    super(shortMessage, {docsPath: 'job-spec.md', exitCode: 2, ...parameters})
    this.field = parameters.field
  }
}
