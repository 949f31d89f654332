import type {Address, Hex} from 'viem'

/** Mirrors `TaskMarket.Status`; the index is the on-chain enum value. */
export const taskStatuses = ['None', 'Submitted', 'Claimed', 'Committed', 'Verifying', 'Verified', 'Settled', 'Expired'] as const
export type TaskStatus = (typeof taskStatuses)[number]

/** Role bit flags of `RoleRegistry`. */
export const Role = {solver: 1, verifier: 2, whistleblower: 4} as const
export type RoleName = keyof typeof Role

/**
 * The task struct `TaskMarket.getTask` returns (same field names), with bigints for block numbers, times, steps and
 * amounts (the view packs some narrower than 48 bits, which viem decodes as numbers) and names for enums, and the
 * fields the market does not store filled in (readUnstoredFields).
 */
export type Task = {
  id: bigint
  submitter: Address
  solver: Address
  verifier: Address
  status: TaskStatus
  accepted: boolean
  /** Proofs rejected so far (each rejection reopens the task). */
  attempts: number
  specHash: Hex
  /** Ether held for the task: the submission's escrow less any rejection's fee shortfall (docs/market.md, 2). */
  escrow: bigint
  /** The task's estimated work (docs/market.md, section 1) and the steps of its range. */
  workUnits: bigint
  maxSteps: bigint
  /** ProtocolConfig's verifierFeeBps at the submission (the escrow covers this fee). */
  verifierFeeBps: number
  /** The most the submitter pays per work unit (wei). */
  maxPrice: bigint
  /** The SolverBook's price fixed at the claim (wei per work unit; 0 before a claim). */
  price: bigint
  /** The task whose final checkpoint this one starts from (0n: none). */
  parentId: bigint
  /** price * workUnits (* totalSteps / maxSteps once committed), and verifierFeeBps of it (0 before a claim). */
  solverReward: bigint
  verifierReward: bigint
  claimTimeout: bigint
  trainingTimeout: bigint
  verificationTimeout: bigint
  /** The current stage's deadline, a unix time (seconds) judged by the chain's clock; once Settled, the settlement time. */
  deadline: bigint
  submittedAt: bigint
  commitBlock: bigint
  checkpointCount: number
  proofRoot: Hex
  manifestHash: Hex
  /** blockhash(commitBlock + 1): picks the segments a verifier replays. */
  randomness: Hex
  reportHash: Hex
  /** The largest replay distance the verifier posted, 1e18 fixed point (0: bit-for-bit matches). */
  distance: bigint
  /** keccak256(abi.encode(secret)), committed at the claim (docs/disputes.md, "Task lifecycle"). */
  secretHash: Hex
  /** blockhash(claimBlock + 1), fixed by fixSeed or commitProof: with the secret it tosses the forced-error coin. */
  seed: Hex
  /** keccak256(abi.encode(honestRoot, honestManifestHash, secret)): the honest proof behind a forced error. */
  sealedHonest: Hex
  /** Block of the solver's claim. */
  claimBlock: bigint
  /** The proof's schedule: checkpoint s is the state after step min(s * checkpointInterval, totalSteps). */
  checkpointInterval: bigint
  totalSteps: bigint
  /** ProtocolConfig.forcedErrorBps at the claim: the coin's odds for this attempt. */
  forcedErrorBps: number
  /** The solver revealed a forced error: the honest proof replaced the published one. */
  forcedRevealed: boolean
  /**
   * Block of the verdict; challenges are committed to challengeEndBlock and opened to openEndBlock, a forced
   * error is revealed after that to revealEndBlock.
   */
  verdictBlock: bigint
  challengeEndBlock: bigint
  openEndBlock: bigint
  revealEndBlock: bigint
  /** A rejection's failed segment (0 for an acceptance). */
  rejectSegment: number
  /** The solver filed a dispute of the rejection (played at settle). */
  disputeFiled: boolean
  /** Index of the next whistleblower challenge to play (or the one playing). */
  nextChallenge: number
  /** The end hash the verifier's replay of `rejectSegment` produced (zero for an acceptance). */
  rejectReplayHash: Hex
  /** The committed checkpoints around the rejected segment (proven by disputeRejection). */
  rejectStartHash: Hex
  rejectEndHash: Hex
  /** The stakes locked for this task when they were locked (a config change never alters them). */
  solverLocked: bigint
  verifierLocked: bigint
  /** The PinpointGame dispute being played (0: none). */
  activeDispute: bigint
}

/** What the verifier concluded; `none` while no verdict has been posted (or the task expired without one). */
export type Verdict = 'accepted' | 'rejected' | 'none'

export function verdictOf(task: Pick<Task, 'status' | 'accepted'>): Verdict {
  if (task.status !== 'Verified' && task.status !== 'Settled') return 'none'
  return task.accepted ? 'accepted' : 'rejected'
}

/**
 * Settled, accepted, and trained over its whole range: a task whose final checkpoint later work may start from
 * (a split child, the next round of a parallel split). One that stopped early has no checkpoint at its range's end.
 */
export function settledWhole(task: Pick<Task, 'status' | 'accepted' | 'totalSteps' | 'maxSteps'>): boolean {
  return task.status === 'Settled' && task.accepted && task.totalSteps === task.maxSteps
}

/** The block a read is taken at (default: the head): the reads' shared optional parameter. */
export type BlockParameter = {blockNumber?: bigint | undefined}
