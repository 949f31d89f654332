import type {Hex} from 'viem'

import type {JobSpec} from '../../ml/spec/schema.js'
import type {ProofManifest} from '../../ml/checkpoint/manifest.js'
import type {SignedConnection} from '../../protocol/connect.js'
import type {DisputeOutcome, DisputePhase, DisputeRole} from '../../protocol/disputeTypes.js'
import type {BlobStore} from '../../store/types.js'
import type {OperatorCorruption, StepTrace} from '../types.js'

/**
 * How the agent plays its own disputes (committee votes are always honest):
 * - `honest`: replays and posts what it computes;
 * - `griefer`: posts made-up hashes and headers, never replays (a whistleblower challenging correct work);
 * - `staller`: answers `stallAfterRounds` rounds honestly, then never moves again (it loses by timeout);
 * - `defend`: a prover behind a wrong proof that still replays honestly: its moves are the honest ones and its
 *   S_{i+1} is the committed end hash the dispute opened with, so it loses at the last step (StateAssembly);
 * - `corrupt` (TEST-ONLY): defends a proof trained with `corruption`, computing states and traces with it.
 */
export type DisputeStance = 'honest' | 'griefer' | 'staller' | 'defend' | 'corrupt'
export const disputeStances: readonly DisputeStance[] = ['honest', 'griefer', 'staller', 'defend', 'corrupt']

export type DisputeMove = 'state' | 'header' | 'commitment' | 'arbitrate' | 'escalate' | 'timeout' | 'draw' | 'vote'

export type DisputeAgentEvent =
  | {type: 'joined'; disputeId: bigint; taskId: bigint; role: DisputeRole | 'committee'}
  | {type: 'move'; disputeId: bigint; taskId: bigint; move: DisputeMove; phase: DisputePhase; index: bigint; value?: string | undefined; gasUsed: bigint}
  | {type: 'stalled'; disputeId: bigint; taskId: bigint; rounds: number}
  | {type: 'resolved'; disputeId: bigint; taskId: bigint; role: DisputeRole | 'committee'; outcome: DisputeOutcome; won: boolean | undefined}
  | {type: 'lost-race'; disputeId: bigint; taskId: bigint; move: DisputeMove; reason: string}
  /** A move it could not compute or send (a blob missing from its store, say); it tries again on the next poll. */
  | {type: 'error'; disputeId: bigint; taskId: bigint; message: string}

export type DisputeAgentOptions = {
  connection: SignedConnection
  /** Where specs, manifests and checkpoints are read (default: the connection's store). */
  store?: BlobStore | undefined
  stance?: DisputeStance | undefined
  /** `staller`: how many of its own moves it makes before it stops (default 1). */
  stallAfterRounds?: number | undefined
  /** `corrupt`: the operator corruption the defended proof was trained with. */
  corruption?: OperatorCorruption | undefined
  /** Judge and vote when drawn for a committee (default true). */
  serveCommittee?: boolean | undefined
  /** Seeds a griefer's made-up answers, so a replayed devnet run makes the same ones (default: random). */
  seed?: Hex | undefined
  onEvent?: ((event: DisputeAgentEvent) => void) | undefined
}

export type DisputeAgent = {
  /** Makes every move due now for this account (its disputes, and its committee seats), then returns. */
  poll(): Promise<void>
  /** Disputes this agent took part in and saw resolved, with their outcomes. */
  readonly resolved: ReadonlyMap<bigint, DisputeOutcome>
}

/** What the agent knows about a dispute's task: computed once per dispute. */
export type DisputeContext = {
  spec: JobSpec
  manifest: ProofManifest
  segment: number
  /**
   * The task's first absolute step (taskStepRange: 0 unless it is a later task of a split job). The game numbers
   * steps from the task's start (docs/disputes.md: segment s spans [s * interval, ...]); the manifest, the
   * checkpoints and training number them from the job's, so absolute step = rangeStart + game step.
   */
  rangeStart: number
  /** State hashes after each step of the segment, from startStep (hashes[0] is the committed start). */
  stateHashes?: Hex[]
  /** Traces of disputed steps, by step and by whether the corruption applies. */
  traces: Map<string, StepTrace>
}

/** One agent: how it was set up (fixed), and what it remembers between polls (changed by its steps). */
export type DisputeAgentRun = {
  connection: SignedConnection
  /** Where specs, manifests and checkpoints are read. */
  store: BlobStore
  stance: DisputeStance
  /** `staller`: its own moves before it stops. */
  stallAfter: number
  serveCommittee: boolean
  /** The corruption its states and traces are computed with: only for the `corrupt` stance. */
  corruption: OperatorCorruption | undefined
  /** Seeded (or random) numbers in [0, 1), for a griefer's made-up answers. */
  random: () => number
  emit: (event: DisputeAgentEvent) => void
  /** This account's address, lower case. */
  me: string
  /** Each dispute's context, loading or loaded (a failed load is dropped, to be tried again). */
  contexts: Map<bigint, Promise<DisputeContext>>
  /** Its role in each dispute it joined. */
  roles: Map<bigint, DisputeRole | 'committee'>
  /** Moves it made per dispute (a staller stops after `stallAfter`). */
  moves: Map<bigint, number>
  /** Disputes a staller stopped answering (told once). */
  stalled: Set<bigint>
  /** Committee seats it has voted in. */
  voted: Set<bigint>
  resolved: Map<bigint, DisputeOutcome>
  /** Disputes known to be over (resolved, or not ours and past any committee draw): never read again. */
  done: Set<bigint>
}
