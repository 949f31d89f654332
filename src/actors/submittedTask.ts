import type {Hex} from 'viem'

import type {TaskStatus} from '../protocol/types.js'

/** One task of the job; amounts are decimal wei strings so the result is plain JSON. */
export type SubmittedTask = {
  /** Absent in a dry run. */
  taskId?: string
  /** Which copy of the job (0-based; see `count`). */
  copy: number
  /** Its position in a split job (0-based), and the job's task count (1 when not split). */
  index: number
  tasks: number
  /** The task before it in a split job ('0' for none). */
  parentId: string
  specHash: Hex
  /** The absolute steps it trains, [start, end). */
  steps: {start: number; end: number}
  workUnits: string
  escrow: string
  transactionHash?: Hex
  gasUsed?: string
  // With --wait, once it is settled or expired:
  status?: TaskStatus
  verdict?: 'accepted' | 'rejected' | 'none'
  /** The price per work unit fixed at the (last) claim. */
  price?: string
  totalSteps?: string
  solverPaid?: string
  verifierPaid?: string
  tax?: string
  /** Paid out of the escrow to verifiers of rejected proofs (the slashed stake's shortfall). */
  fromEscrow?: string
  refunded?: string
  /** The last task of each copy: the delivered model's test accuracy (NaN, null in JSON, for a regression), test loss and final checkpoint. */
  testAccuracy?: number
  testLoss?: number
  /** A private job: the wrapped model (mapping + trained layers) on the raw test samples. */
  rawTestAccuracy?: number
  finalCheckpoint?: Hex
}
