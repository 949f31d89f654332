import type {Address, Hex} from 'viem'

/** Mirrors `TaskMarket.Status`; the index is the on-chain enum value. */
export const taskStatuses = ['None', 'Submitted', 'Claimed', 'Committed', 'Verifying', 'Verified', 'Settled', 'Expired'] as const
export type TaskStatus = (typeof taskStatuses)[number]

/** Role bit flags of `RoleRegistry`. */
export const Role = {solver: 1, verifier: 2, whistleblower: 4} as const
export type RoleName = keyof typeof Role

export type Task = {
  id: bigint
  submitter: Address
  solver: Address
  verifier: Address
  status: TaskStatus
  accepted: boolean
  specHash: Hex
  escrow: bigint
  solverReward: bigint
  verifierReward: bigint
  claimTimeout: bigint
  trainingTimeout: bigint
  verificationTimeout: bigint
  deadline: bigint
  submittedAt: bigint
  commitBlock: bigint
  checkpointCount: number
  proofRoot: Hex
  manifestHash: Hex
  randomness: Hex
  reportHash: Hex
  /** Proofs rejected so far (each rejection reopens the task). */
  attempts: number
  /** The largest replay distance the verifier posted, 1e18 fixed point (0: bit-for-bit matches). */
  distance: bigint
}

/** What the verifier concluded; `none` while no verdict has been posted (or the task expired without one). */
export type Verdict = 'accepted' | 'rejected' | 'none'

export function verdictOf(task: Pick<Task, 'status' | 'accepted'>): Verdict {
  if (task.status !== 'Verified' && task.status !== 'Settled') return 'none'
  return task.accepted ? 'accepted' : 'rejected'
}
