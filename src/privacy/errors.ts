import {BaseError, type BaseErrorParameters} from '../errors/base.js'

/** A privacy attack's inputs do not fit its maths (an indefinite matrix, sizes out of order). */
export class AttackInputError extends BaseError {
  override name = 'AttackInputError'
}

/** A private job cannot go ahead: a missing or malformed secret or key file, a key for another task. */
export class PrivacyError extends BaseError {
  override name = 'PrivacyError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'privacy.md', ...parameters})
  }
}
