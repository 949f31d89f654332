import type {Address, Hex} from 'viem'

import type {VerifierStrategyName} from '../../adversary/verifierStrategies.js'
import type {DisputeAgent, DisputeAgentEvent} from '../../dispute/createDisputeAgent.js'
import type {RuntimeId} from '../../ml/backend/index.js'
import type {JobSpec} from '../../ml/spec/index.js'
import type {ProofManifest, Thresholds, VerificationMode} from '../../pol/index.js'
import type {SettleOutcome} from '../../protocol/marketActions.js'
import type {RoleRun} from '../roleRun.js'
import type {RoleLoopOptions} from '../runRoleLoop.js'

export type VerifierEvent =
  | {type: 'ready'; address: Hex; runtime: string; strategy: VerifierStrategyName}
  | {type: 'skipped'; taskId: bigint; reason: string}
  | {type: 'inconclusive'; taskId: bigint; reason: string}
  | {type: 'claimed'; taskId: bigint; randomness: Hex; gasUsed: bigint}
  | {type: 'segment'; taskId: bigint; segment: number; startStep: number; endStep: number; match: boolean; hashMatch: boolean; seconds: number}
  | {
      type: 'verdict'
      taskId: bigint
      accepted: boolean
      reason?: string | undefined
      reportHash: Hex
      distance: bigint
      /** A rejection's claim: the failing segment and the end hash its replay gave (0 / zero hash on acceptance). */
      segment: number
      replayHash: Hex
      /** False when the verifier's strategy accepted without replaying (lazy, colluding). */
      replayed: boolean
      verifySeconds: number
      gasUsed: bigint
    }
  | {type: 'settle'; taskId: bigint; gasUsed: bigint; outcome: SettleOutcome}
  | {type: 'dispute'; event: DisputeAgentEvent}
  | {type: 'lost-race'; taskId: bigint; reason: string}
  /** Something it passed over that its operator should know, e.g. a pinned profile the store could not give. */
  | {type: 'warning'; taskId: bigint; message: string}

export type VerifierOptions = RoleLoopOptions<VerifierEvent> & {
  /**
   * exact (default): replay on the proof's own runtime, bit for bit. tolerance: replay on this verifier's
   * backend, within the thresholds of the profile the job pins for the runtime class {proof runtime, this
   * runtime}; a job that pins none for it is skipped (docs/verification.md, "Thresholds are pinned by the job").
   */
  mode?: VerificationMode | undefined
  /** `honest` (default), `lazy` or `colluding` (docs/adversaries.md). */
  strategy?: VerifierStrategyName | undefined
  /** colluding: the solvers whose proofs it accepts without replaying. */
  colludeWith?: readonly Address[] | undefined
  /** Wait this long after first seeing a committed proof before claiming its verification. */
  claimDelayMs?: number | undefined
}

/**
 * Verifier stakes a verifier keeps deposited: one to lock for the task it verifies, one free so that it can still
 * be drawn for a dispute committee meanwhile (a member needs free stake >= verifierStake, docs/disputes.md).
 */
export const stakesHeld = 2

export type VerifiedTask = {taskId: bigint; accepted: boolean; reportHash: Hex; segment: number; replayHash: Hex; replayed: boolean}

/** The verdict a verifier posts, with the report its hash commits to. */
export type Decision = {report: unknown; accepted: boolean; reason?: string | undefined; distance: bigint; segment: number; replayHash: Hex; replayed: boolean}

/** What a verifier knows about a committed proof before it claims the verification. */
export type VerificationPlan = {
  spec: JobSpec
  /** Its strategy accepts this proof without replaying (lazy, or colluding with the solver). */
  unchecked: boolean
  /** The runtime the proof names (undefined when its manifest is missing or malformed). */
  manifestRuntime: ProofManifest['runtime'] | undefined
  /** Tolerance mode: the thresholds the job pins for {proof runtime, this runtime}. */
  thresholds: Thresholds | undefined
}

/** One verifier's run: what it was told and set up at the start (fixed), and its memory (changed by its steps). */
export type VerifierRun = RoleRun<VerifierOptions, VerifierEvent> & {
  strategy: VerifierStrategyName
  colludeWith: readonly Address[]
  mode: VerificationMode
  runtime: RuntimeId
  agent: DisputeAgent
  memory: {
    /** Proof attempts (attemptOf) it skipped or lost the race for: not tried again. */
    passed: Set<string>
    /** When each committed proof attempt was first seen, for claimDelayMs. */
    firstSeen: Map<string, number>
  }
}
