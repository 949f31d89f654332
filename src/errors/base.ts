export type BaseErrorParameters = {
  /** Extra lines shown under the short message (what was received, what was expected). */
  details?: string | undefined
  /** Path under docs/ that explains the failure. */
  docsPath?: string | undefined
  /** Process exit code a CLI should use: 2 for bad input, 1 (the default) for everything else. */
  exitCode?: number | undefined
  cause?: unknown
}

/**
 * The one error type every gensyn failure extends. The CLI prints `shortMessage` alone on one line
 * (plus details) unless `--debug` asks for the stack.
 */
export class BaseError extends Error {
  override name = 'GensynError'
  readonly shortMessage: string
  readonly details: string | undefined
  readonly docsPath: string | undefined
  readonly exitCode: number | undefined

  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    const lines = [shortMessage]
    if (parameters.details) lines.push('', `Details: ${parameters.details}`)
    if (parameters.docsPath) lines.push(`Docs: docs/${parameters.docsPath}`)
    super(lines.join('\n'), parameters.cause === undefined ? undefined : {cause: parameters.cause})
    this.shortMessage = shortMessage
    this.details = parameters.details
    this.docsPath = parameters.docsPath
    this.exitCode = parameters.exitCode
  }
}

/** Input the user gave (a file, a flag, a spec) is wrong: exit code 2. */
export class InvalidInputError extends BaseError {
  override name = 'InvalidInputError'
  constructor(shortMessage: string, parameters: Omit<BaseErrorParameters, 'exitCode'> = {}) {
    super(shortMessage, {...parameters, exitCode: 2})
  }
}
