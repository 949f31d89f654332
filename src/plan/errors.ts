import {InvalidInputError} from '../errors/base.js'

/** A verification plan question with impossible numbers (bad input: exit code 2). */
export class PlanError extends InvalidInputError {
  override name = 'PlanError'
  constructor(shortMessage: string, parameters: {details?: string; cause?: unknown} = {}) {
    super(shortMessage, {docsPath: 'verification.md', ...parameters})
  }
}
