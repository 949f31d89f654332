import {InvalidInputError} from '../errors/base.js'
import type {BaseErrorParameters} from '../errors/base.js'

/** A cheat() input that cannot work (unknown strategy, bad seed, unusable copy source): exit code 2. */
export class AdversaryInputError extends InvalidInputError {
  override name = 'AdversaryInputError'
  constructor(shortMessage: string, parameters: Omit<BaseErrorParameters, 'exitCode'> = {}) {
    super(shortMessage, {docsPath: 'adversaries.md', ...parameters})
  }
}
