import type {ActorExit} from './actorExit.js'
import type {ActorHandle} from './spawnActor.js'
import type {ActorCrash} from './superviseActor.js'

/** What a devnet tells its watchers (the line log, the dashboard, the run's own bookkeeping) as it runs. */
export type DevnetEvent =
  | {type: 'phase'; message: string}
  | {type: 'actor'; actor: string; role: string; event: Record<string, unknown>}
  /** The end of an actor. `killed`: the devnet killed it on purpose (a dropout solver), so its exit is not a crash. */
  | {type: 'actor-exit'; actor: string; role: ActorHandle['role']; exit: ActorExit; killed: boolean}
  /** One of its processes died (a crash, or the chaos monkey's kill); `crash.restart` says when it comes back. */
  | {type: 'actor-crash'; actor: string; role: ActorHandle['role']; crash: ActorCrash}

/** A dropout solver the devnet killed: after which stored checkpoint of which task. */
export type Dropout = {actor: string; taskId: string; step: number}

/** How one job's submitter ended, and the JSON result it printed. */
export type SubmissionOutcome = {
  job: string
  /** Its place in the scenario's `jobs` (absent in outcomes recorded before it was kept). */
  index?: number
  submitter: string
  exit: ActorExit
  result: Record<string, unknown> | undefined
  /** The run ended (a duration, Ctrl-C, `q`) before this submitter did: it was stopped, it did not fail. */
  stoppedByDevnet?: boolean
}
