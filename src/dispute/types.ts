import type {Hex} from 'viem'

import type {OperatorDescriptor} from '../protocol/disputeTypes.js'

export type {OperatorDescriptor} from '../protocol/disputeTypes.js'

/** One element of a step's trace: one output of one kernel call (or one input tensor). */
export type TraceElement = {
  descriptor: OperatorDescriptor
  /** d_j = keccak256(abi.encode(D_j)). */
  descriptorHash: Hex
  /** o_j = keccak256(data). */
  outputHash: Hex
  shape: number[]
  dtype: string
  /** The canonical output bytes (little-endian, NaN canonical): `outputHash` is their keccak256. */
  data: Uint8Array
}

/** The operator trace of training step `step` -> `step + 1` re-executed on wasm from the agreed state. */
export type StepTrace = {
  /** The training step traced (absolute: a later split task's steps are the job's); c_0 uses it counted from the task's start. */
  step: number
  /** S_i: checkpoint hash of the state before the step. */
  stateHash: Hex
  /** S_{i+1}: checkpoint hash of the state after the step. */
  nextStateHash: Hex
  /** Elements 1..m (elements[j - 1] is element j). */
  elements: TraceElement[]
  /** g_m. */
  graphHash: Hex
  /** m. */
  opCount: number
  /** c_0 .. c_m (commitments[j] is c_j). */
  commitments: Hex[]
  /** c_m. */
  finalCommitment: Hex
  /** c_{m+1} = keccak256(abi.encode(c_m, S_{i+1})). */
  finalClaim: Hex
}

/**
 * TEST-ONLY adversary: flip the lowest mantissa bit of output element `element` (flat index from 0) of
 * output `output` (default 0) of the `occurrence`-th (from 1) top-level call of `kernel` during training
 * step `step` (the step that turns state `step` into state `step + 1`).
 */
export type OperatorCorruption = {
  step: number
  kernel: string
  occurrence: number
  element: number
  output?: number | undefined
}
