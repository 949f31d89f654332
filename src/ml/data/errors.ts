import {InvalidInputError} from '../../errors/base.js'

/** A job's own data is unusable (missing, malformed, not what the spec declares): exit code 2, nothing published. */
export class DataInputError extends InvalidInputError {
  override name = 'DataInputError'
}
