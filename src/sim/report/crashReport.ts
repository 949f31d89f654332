import type {CrashReport} from '../buildReport.js'
import {exitReason} from '../actorExit.js'
import type {ActorCrash} from '../superviseActor.js'

/** A supervisor's crash record as the report keeps it: plain strings and numbers. */
export function crashReport(crash: ActorCrash): CrashReport {
  const {exit} = crash
  const reason = exitReason(exit)
  return {
    actor: crash.actor,
    role: crash.role,
    cause: crash.cause,
    atSeconds: Math.round(crash.atSeconds * 10) / 10,
    how: `${exit.signal ?? `exit code ${exit.exitCode ?? '?'}`}${reason ? `: ${reason}` : ''}`,
    restartedAfterMs: crash.restart?.delayMs ?? null,
  }
}
