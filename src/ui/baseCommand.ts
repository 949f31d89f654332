import {Command, Errors, Flags} from '@oclif/core'

import {BaseError} from '../errors/base.js'

/** Exit codes shared by every command. */
export const ExitCode = {ok: 0, failure: 1, invalidInput: 2} as const

/**
 * Every gensyn command extends this: it owns `--json`, `--debug` and `--no-color`, and turns any failure into one line on
 * stderr (or an `{error}` object with --json) with a non-zero exit code, so users never see a stack trace
 * unless they ask for it.
 */
export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    debug: Flags.boolean({description: 'Print stack traces and internal detail on failure.', helpGroup: 'GLOBAL'}),
    // bin/run.js acts on it (and on NO_COLOR) before any colour library loads; declared here so every command
    // accepts it and --help lists it.
    'no-color': Flags.boolean({description: 'No ANSI colours or styles in any output, the live dashboard included (as does NO_COLOR=1).', helpGroup: 'GLOBAL'}),
  }

  /** Writes one JSON line to stdout: used by long-running commands that stream events with --json. */
  protected emitJsonLine(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, jsonReplacer)}\n`)
  }

  /** One compact line, so scripts and the devnet can read results line by line. */
  protected override logJson(json: unknown): void {
    this.emitJsonLine(json)
  }

  override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    const debug = this.argv.includes('--debug') || Boolean(process.env.DEBUG)
    const exitCode = exitCodeOf(error)
    const message = oneLineMessage(error)
    if (this.argv.includes('--json')) {
      this.emitJsonLine({
        error: {
          name: error instanceof BaseError ? error.constructor.name : error.name,
          message,
          details: error instanceof BaseError ? error.details : undefined,
        },
      })
    } else {
      process.stderr.write(`Error: ${message}\n`)
      if (debug) {
        const cause = error.cause instanceof Error ? error.cause.stack : error.cause
        process.stderr.write(`${error.stack ?? ''}\n${cause ? `Caused by: ${String(cause)}\n` : ''}`)
      }
    }
    this.exit(exitCode)
    throw error
  }
}

export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value
}

function exitCodeOf(error: Error & {exitCode?: number; oclif?: {exit?: number}}): number {
  if (error instanceof BaseError) return error.exitCode ?? ExitCode.failure
  const ours = gensynCause(error)
  if (ours) return ours.exitCode ?? ExitCode.failure
  if (error instanceof Errors.CLIError) return ExitCode.invalidInput
  return error.exitCode ?? error.oclif?.exit ?? ExitCode.failure
}

function oneLineMessage(error: Error): string {
  if (error instanceof BaseError) return error.shortMessage
  // A library error (viem's) around one of ours, e.g. an RPC that gave up: ours says what happened in one line.
  const ours = gensynCause(error)
  if (ours) return ours.shortMessage
  // oclif's parse errors spread over lines ("Missing 1 required arg:", "job  Path to…", "See more help…").
  const lines = error.message
    .split('\n')
    .map((line) => line.trim().replace(/\s{2,}/g, ': '))
    .filter((line) => line !== '' && !line.startsWith('See more help'))
  return lines.join(' ') || String(error)
}

function gensynCause(error: Error): BaseError | undefined {
  for (let cause = error.cause, depth = 0; cause instanceof Error && depth < 10; cause = cause.cause, depth++) {
    if (cause instanceof BaseError) return cause
  }
  return undefined
}
