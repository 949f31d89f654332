import {InvalidInputError} from '../../errors/base.js'

/** A profile that cannot run: bad counts, no runtime that loads, or a diverged reference run (exit code 2). */
export class ProfileError extends InvalidInputError {
  override name = 'ProfileError'
  constructor(shortMessage: string, parameters: {details?: string; cause?: unknown} = {}) {
    super(shortMessage, {docsPath: 'verification.md', ...parameters})
  }
}
