import {BaseError} from '../../errors/base.js'

/** tfjs could not turn a checkpoint into an exportable model (it saved no weights). */
export class ModelExportError extends BaseError {
  override name = 'ModelExportError'
}
