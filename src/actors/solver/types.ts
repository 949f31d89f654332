import type {Hex} from 'viem'

import type {StrategyName} from '../../adversary/index.js'
import type {DisputeAgent, DisputeAgentEvent} from '../../dispute/createDisputeAgent.js'
import type {OperatorCorruption} from '../../dispute/types.js'
import type {WorkTable} from '../../ml/estimate/workTable.js'
import type {SettleOutcome} from '../../protocol/marketActions.js'
import type {RoleRun} from '../roleRun.js'
import type {ExpireReport, RoleLoopOptions} from '../runRoleLoop.js'

/** How a solver plays a dispute over its proof (`solve --dispute-stance`, docs/adversaries.md). */
export const solverDisputeStances = ['honest', 'defend', 'staller'] as const
export type SolverDisputeStance = (typeof solverDisputeStances)[number]

/**
 * A claimed task still training this many blocks after its claim records its forced-error seed (fixSeed): well
 * inside the EVM's 256-block window, late enough that short trainings commit first and never pay for it.
 */
export const SEED_FIX_AFTER_BLOCKS = 64n

export type SolverEvent =
  | {type: 'ready'; address: Hex; runtime: string; disputeStance: SolverDisputeStance; ask: bigint; capacity: number}
  /** It listed its offer (joined the market): the price read was at least its ask. */
  | {type: 'offer-listed'; ask: bigint; capacity: number; price: bigint}
  /** It withdrew its offer (left): the price read was below its ask, or it is leaving (`leaveAfterSeconds`). */
  | {type: 'offer-withdrawn'; ask: bigint; price: bigint; reason: 'price' | 'leaving'}
  | {type: 'claimed'; taskId: bigint; claimBlock: bigint; gasUsed: bigint; price: bigint}
  | {type: 'resumed'; taskId: bigint; step: number}
  /** `step` is the job's absolute step; the task trains `from` .. `steps` (a split task's range). */
  | {type: 'progress'; taskId: bigint; step: number; steps: number; from: number; loss: number}
  /** A checkpoint stored (and written to the state file, so a restart resumes from it). */
  /** Stored and recorded (one interval after it was taken, trainJob writes behind training); `loss` is its step's batch loss. */
  | {type: 'checkpoint'; taskId: bigint; step: number; hash: Hex; loss?: number}
  /** The forced-error coin, computed off-chain and checked against `forcedErrorOf`. */
  | {type: 'coin'; taskId: bigint; forced: boolean}
  /** A long training recorded its seed before the EVM forgot the seed block (TaskMarket.fixSeed). */
  | {type: 'seed-fixed'; taskId: bigint; block: bigint; gasUsed: bigint}
  | {
      type: 'committed'
      taskId: bigint
      proofRoot: Hex
      manifestHash: Hex
      checkpoints: number
      /** Steps trained (fewer than the range when the job stopped early). */
      totalSteps: number
      trainingSeconds: number
      runtime: string
      gasUsed: bigint
      /** Set when the proof was made by an adversary strategy. */
      strategy?: StrategyName
      /** Set when the committed proof is a forced error: the honest proof it sealed. */
      sealedHonestRoot?: Hex
    }
  | {type: 'revealed'; taskId: bigint; honestRoot: Hex; gasUsed: bigint}
  | {type: 'rejection-disputed'; taskId: bigint; segment: number; gasUsed: bigint}
  | {type: 'settle'; taskId: bigint; gasUsed: bigint; outcome: SettleOutcome}
  | {type: 'dispute'; event: DisputeAgentEvent}
  | {type: 'warning'; taskId: bigint; message: string}
  | {type: 'lost-race'; taskId: bigint; reason: string}
  /** It expired another solver's claimed task past its training deadline (the task is back in the pool). */
  | ({type: 'expired'} & ExpireReport)
  /** It is leaving the market (`leaveAfterSeconds`): no new claims; it exits once its task is done. */
  | {type: 'leaving'; afterSeconds: number}

export type SolverOptions = RoleLoopOptions<SolverEvent> & {
  /** Wait this long after first seeing an open task before claiming it (a slower-reacting solver). */
  claimDelayMs?: number | undefined
  /** An adversary strategy from src/adversary (docs/adversaries.md); `honest` (the default) trains for real. */
  strategy?: StrategyName | undefined
  /** Default: `honest` for the honest strategy, `defend` for a cheat. */
  disputeStance?: SolverDisputeStance | undefined
  /** A staller answers this many dispute rounds, then stops (default 1). */
  stallAfterRounds?: number | undefined
  /** Test only: the dispute agent lies about one operator's output (docs/adversaries.md). */
  corruption?: OperatorCorruption | undefined
  /** Its ask in wei per work unit (docs/market.md, section 3). Default: the protocol's price floor, so it never leaves. */
  ask?: bigint | undefined
  /**
   * Tasks at once it lists in its offer (default 1). The loop trains one task at a time: with N > 1 it claims
   * its next task only once the book counts fewer than N active, but never trains two at once.
   */
  capacity?: number | undefined
  /** The supply shock: after this many seconds it withdraws its offer, finishes its current task and returns. */
  leaveAfterSeconds?: number | undefined
}

export type SolvedTask = {taskId: bigint; proofRoot: Hex; manifestHash: Hex; checkpoints: number; totalSteps: number; trainingSeconds: number; forced: boolean}

/** What a solver remembers between polls: the only state its steps change. */
export type SolverMemory = {
  /**
   * Tasks another solver claimed first (the list we read may still show them open for a block), with the
   * block of the loss; a task reopened later (a timeout, a rejection) is taken again.
   */
  lostRaces: Map<bigint, bigint>
  /** Tasks it will never claim (a revert that holds for good for this solver and task). */
  never: Set<bigint>
  /** What the last read of the book said: the price, whether we are listed, and how many tasks it counts active. */
  book: {price: bigint; listed: boolean; active: number}
  /** Whether each open task's declared work units cover our own estimate of its spec (a cheap-looking task is not). */
  honestWork: Map<bigint, boolean>
  announcedLeaving: boolean
  /** Set once a leaving solver's offer is off the book: only then may its loop return. */
  left: boolean
  /** When each open task was first seen, for claimDelayMs. */
  firstSeen: Map<bigint, number>
  /** Warnings already shown, so a retried duty does not repeat itself every poll. */
  warned: Set<string>
  /** When the duties last ran (performance.now()), so training runs them at most once a poll interval. */
  lastDuties: number
}

/** One solver's run: what it was told and set up at the start (fixed), and its memory (changed by its steps). */
export type SolverRun = RoleRun<SolverOptions, SolverEvent> & {
  strategy: StrategyName
  stance: SolverDisputeStance
  capacity: number
  /** Its ask in wei per work unit. */
  ask: bigint
  /** The table a task's declared work is checked against: read once, like the price floor. */
  workTable: WorkTable
  /** performance.now() at the start, for leaveAfterSeconds. */
  started: number
  agent: DisputeAgent
  memory: SolverMemory
}
