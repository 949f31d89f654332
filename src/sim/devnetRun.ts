import path from 'node:path'

import type {Anvil} from '../chain/anvil.js'
import type {IntervalMining} from '../chain/intervalMining.js'
import type {BackendChoice} from '../ml/backend/runtimeId.js'
import type {Connection} from '../protocol/connect.js'
import type {RosterEntry} from './actorRoster.js'
import type {BalanceSnapshot} from './balances.js'
import type {ChaosMonkey} from './chaosMonkey.js'
import type {DevnetAccount} from './devnetAccounts.js'
import type {DevnetEvent, Dropout} from './devnetEvents.js'
import type {DevnetStatePaths, PersistedDevnet} from './devnetState.js'
import type {PausedDevnet} from './pauseDevnet.js'
import type {MarketSampler} from './sampleMarket.js'
import type {ResolvedScenario} from './scenario.js'
import type {ActorCrash, SupervisedActor} from './superviseActor.js'
import type {CrowdMembers} from './crowd/crowdMembers.js'
import type {CrowdOutcome} from './crowd/types.js'

/** Where one devnet run keeps its files. */
export type DevnetPaths = {
  stateDir: string
  /** `<stateDir>/logs`, and the run folder's own logs/ when there is one: every actor's log goes to each. */
  logDirs: string[]
  /** With `--state`: the chain's dump and the folder beside it (src/sim/devnetState.ts). */
  statePaths: DevnetStatePaths | undefined
  /** The actors' `--state-dir`: beside the chain's dump with `--state`, so a resume finds it; else the state dir. */
  actorStateDir: string
  storeDir: string
}

/**
 * Everything one devnet run knows, as named fields on one object that the steps of src/sim/chainInstance.ts,
 * src/sim/actorFleet.ts and src/sim/devnetRecords.ts read and update, instead of variables captured by closures.
 */
export type DevnetRun = {
  readonly scenario: ResolvedScenario
  readonly backend: BackendChoice
  readonly paths: DevnetPaths
  readonly accounts: DevnetAccount[]
  readonly roster: RosterEntry[]
  /** A crowd scenario's members (their accounts are in `accounts` too); undefined without a crowd. */
  readonly crowd: CrowdMembers | undefined
  /** How the crowd's processes ended, once they have. */
  crowdOutcome: CrowdOutcome | undefined
  readonly anvil: Anvil
  readonly emit: (event: DevnetEvent) => void
  /** Every supervised actor process, submitters included, in the order they were started. */
  readonly actors: SupervisedActor[]
  readonly dropouts: Dropout[]
  readonly crashes: ActorCrash[]
  /** Stops the submitters' waits for their jobs' `at` when the run ends first. */
  readonly stopping: AbortController
  /** The actors' environment: the poll interval on sub-second blocks; start adds an empty MNIST folder when every job is private. */
  workerEnv: Record<string, string> | undefined
  /** The run read back from `--state` at start, when it is resumed. */
  saved: PersistedDevnet | undefined
  /** What `--state` holds now (written by src/sim/devnetRecords.ts). */
  record: PersistedDevnet | undefined
  connection: Connection | undefined
  before: BalanceSnapshot | undefined
  deployBlock: bigint
  mining: IntervalMining | undefined
  sampler: MarketSampler | undefined
  chaos: ChaosMonkey | undefined
  paused: PausedDevnet | undefined
  /** When this process's part of the run began (a resumed run adds the saved run's seconds). */
  runStarted: number
  /** The last write of the `--state` record and of processes.json: each waits for the one before. */
  writing: Promise<void>
  recording: Promise<void>
  /** This devnet passed the check that no other runs in its folders, so stop may remove their files. */
  ownsStateDir: boolean
  /** start() finished: the actors are up (written to processes.json). */
  ready: boolean
  /** stopActors() was called: pause does nothing any more. */
  actorsStopped: boolean
  /** stop() was called: anvil stops, and processes.json is no longer rewritten. */
  chainStopped: boolean
}

/** The devnet's folders, from its options (see DevnetOptions in src/sim/createDevnet.ts). */
export function devnetPaths(stateDirOption: string, runLogDir: string | undefined, statePaths: DevnetStatePaths | undefined): DevnetPaths {
  const stateDir = path.resolve(stateDirOption)
  const logDir = path.join(stateDir, 'logs')
  return {
    stateDir,
    logDirs: runLogDir === undefined ? [logDir] : [logDir, path.resolve(runLogDir)],
    statePaths,
    // With --state, everything the actors keep (blobs, solver secrets and checkpoints) lives beside the chain's
    // dump, so a resume finds it whatever --state-dir it is given; the state dir keeps logs and reports.
    actorStateDir: statePaths?.dir ?? stateDir,
    storeDir: statePaths?.store ?? path.join(stateDir, 'store'),
  }
}

/** The arguments every actor process gets after its own: JSON output, the actors' state dir and the backend. */
export function commonActorArgs(run: DevnetRun, own?: BackendChoice): string[] {
  return ['--json', '--state-dir', run.paths.actorStateDir, '--backend', own ?? run.backend]
}

/**
 * The actors' poll interval on a chain of sub-second blocks: one block (at least 100 ms), where on whole-second
 * blocks they keep their own 500 ms. A GENSYN_POLL_MS the user set wins.
 */
export function actorPollEnv(blockTimeSeconds: number): Record<string, string> | undefined {
  if (blockTimeSeconds >= 1 || process.env.GENSYN_POLL_MS) return undefined
  return {GENSYN_POLL_MS: String(Math.max(100, Math.round(blockTimeSeconds * 1000)))}
}

/** Where a devnet account's private-job secret and key files live (docs/privacy.md), beside the actors' state. */
export function keysDirIn(actorStateDir: string, account: DevnetAccount): string {
  return path.join(actorStateDir, 'keys', `account-${account.index}`)
}
