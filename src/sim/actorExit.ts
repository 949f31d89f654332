/**
 * How an actor process ended, in a module of its own: the supervisor, the event log and the report read exits
 * without loading spawnActor (and execa with it) into every command that prints devnet events.
 */
export type ActorExit = {
  exitCode: number | undefined
  signal: string | undefined
  stderrTail: string
  /** The message of the last `{error}` line it printed (with --json a command reports its failure on stdout). */
  error?: string | undefined
}

/** Why an actor ended, in one line: its reported error, else the last line it wrote to stderr. */
export function exitReason(exit: ActorExit): string {
  return exit.error ?? exit.stderrTail.trim().split('\n').at(-1) ?? ''
}
