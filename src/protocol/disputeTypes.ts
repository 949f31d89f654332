import type {Address, Hex} from 'viem'

/** Mirrors `PinpointGame.Phase`; the index is the on-chain enum value (docs/disputes.md, "PinpointGame"). */
export const disputePhases = ['None', 'Steps', 'TraceHeader', 'Operators', 'Arbitration', 'Committee', 'Resolved'] as const
export type DisputePhase = (typeof disputePhases)[number]

/** Mirrors `IPinpointGame.Outcome`. */
export const disputeOutcomes = ['None', 'ProverWon', 'ChallengerWon', 'BothWrong', 'Void'] as const
export type DisputeOutcome = (typeof disputeOutcomes)[number]

/** What a committee is asked (`PinpointGame.Question`, in its on-chain order). */
export const committeeQuestions = ['None', 'Graph', 'StateAssembly', 'Operator'] as const
export type CommitteeQuestion = (typeof committeeQuestions)[number]

/** A committee member's vote as the contract takes it: 1 prover, 2 challenger, 3 neither. */
export const voteChoices = {prover: 1, challenger: 2, neither: 3} as const
export type VoteChoice = keyof typeof voteChoices
/** A seat's vote as read back: `none` until it votes. */
export const voteNames = ['none', 'prover', 'challenger', 'neither'] as const
export type VoteName = (typeof voteNames)[number]

export type TraceHeader = {opCount: number; graphHash: Hex; finalCommitment: Hex}

/**
 * A dispute as TypeScript reads it: bigints for every uint64/uint256, names for every enum (the fields of
 * `PinpointGame.Dispute`). `lo`/`hi` are steps in the Steps phase and element numbers (0 .. opCount + 1) in
 * Operators; `loHash` is the agreed value at `lo`, `proverHi`/`challengerHi` each side's at `hi`.
 * `proverPost`/`challengerPost` are this round's posts (zero until posted); in TraceHeader the headers are.
 * `step`/`stateHash` are the disputed step i and the agreed S_i, `proverNext`/`challengerNext` each side's
 * S_{i+1} (set once the steps narrow to one); `element` is the disputed element j.
 */
export type Dispute = {
  id: bigint
  taskId: bigint
  prover: Address
  challenger: Address
  excluded: Address
  openerIsProver: boolean
  phase: DisputePhase
  outcome: DisputeOutcome
  question: CommitteeQuestion
  proverPosted: boolean
  challengerPosted: boolean
  rounds: number
  element: number
  deadline: bigint
  /** A committee opened at this block and not yet drawn: drawable from the next block but one (0: none pending). */
  drawAnchor: bigint
  roundTimeoutBlocks: bigint
  committeeTimeoutBlocks: bigint
  startStep: bigint
  endStep: bigint
  lo: bigint
  hi: bigint
  step: bigint
  loHash: Hex
  proverHi: Hex
  challengerHi: Hex
  stateHash: Hex
  proverNext: Hex
  challengerNext: Hex
  proverPost: Hex
  challengerPost: Hex
  proverHeader: TraceHeader
  challengerHeader: TraceHeader
}

export type Committee = {members: Address[]; votes: VoteName[]}

export type DisputeRole = 'prover' | 'challenger'

/** Whether `role` has already made its move in the current round. */
export function hasPosted(dispute: Pick<Dispute, 'proverPosted' | 'challengerPosted'>, role: DisputeRole): boolean {
  return role === 'prover' ? dispute.proverPosted : dispute.challengerPosted
}

/** The party that wins an outcome, if one does. */
export function winnerOf(dispute: Pick<Dispute, 'outcome' | 'prover' | 'challenger'>): Address | undefined {
  if (dispute.outcome === 'ProverWon') return dispute.prover
  if (dispute.outcome === 'ChallengerWon') return dispute.challenger
  return undefined
}

/**
 * What one element of an operator trace is (docs/disputes.md, "The operator trace of one step"); the
 * same fields, in the same order, as PinpointGame's `struct Operation`. It lives with the game's other
 * shapes because `arbitrate` sends it; src/dispute builds it (traceStep) and re-exports it.
 */
export type OperatorDescriptor = {
  /** The tfjs kernel name (`Relu`, `_FusedMatMul`, ...), or `Input` for a tensor no traced kernel produced. */
  kernel: string
  /** Element numbers (from 1) of the kernel's inputs, in the kernel's input order. */
  inputs: number[]
  inputShapes: number[][]
  outputShape: number[]
  /** `float32`, `int32` or `bool`. */
  outputDtype: string
  /** Kernel attributes as ABI bytes (see `descriptorAttrs` in src/dispute/encoding.ts). */
  attrs: Hex
}

/** The arguments of `PinpointGame.arbitrate(id, op, descriptorHashes, outputHashes, inputs)` for element j. */
export type ArbitrationPayload = {
  op: OperatorDescriptor
  /** d_1 .. d_m: the whole agreed graph (the contract recomputes g_m from them). */
  descriptorHashes: Hex[]
  /** o_1 .. o_{j-1}: the agreed outputs (the contract recomputes c_{j-1} from them). */
  outputHashes: Hex[]
  /** The bytes of each element op.inputs names, in order (each hashes to its o). */
  inputs: Hex[]
}
