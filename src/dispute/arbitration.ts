import {bytesToHex, type Hex} from 'viem'
import {onchainKernels} from './encoding.js'
import {DisputeTraceError} from './errors.js'
import type {ArbitrationPayload} from '../protocol/disputeTypes.js'
import type {OperatorDescriptor, StepTrace} from './types.js'

/** PinpointGame's `struct Operation` (the descriptor D_j). */
export type Operation = OperatorDescriptor

export type {ArbitrationPayload} from '../protocol/disputeTypes.js'

/**
 * What to send to `arbitrate` once the operator bisection has narrowed the dispute to element `j` (from
 * 1) of the agreed graph, built from the caller's own trace (whose elements before j are the agreed ones).
 *
 * @throws DisputeTraceError when j is not an element of the trace
 */
export function arbitrationPayload(trace: StepTrace, j: number): ArbitrationPayload {
  const element = trace.elements[j - 1]
  if (!Number.isInteger(j) || j < 1 || element === undefined)
    throw new DisputeTraceError(`j: expected an element number in [1, ${trace.elements.length}], got ${j}`)
  const op = element.descriptor
  const inputs = op.inputs.map((e) => {
    const input = trace.elements[e - 1]
    if (input === undefined || e >= j) throw new DisputeTraceError(`element ${j} input ${e}: expected an earlier element of the trace`)
    return bytesToHex(input.data)
  })
  return {
    op: {...op, inputs: [...op.inputs], inputShapes: op.inputShapes.map((s) => [...s]), outputShape: [...op.outputShape]},
    descriptorHashes: trace.elements.map((e) => e.descriptorHash),
    outputHashes: trace.elements.slice(0, j - 1).map((e) => e.outputHash),
    inputs,
  }
}

const elementCount = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1)

/**
 * True when the contract can re-execute the operator itself: an on-chain kernel (ElementwiseReferee),
 * a float32 output, and no input or output tensor over `maxElements` elements (ProtocolConfig's
 * maxOnchainElements). Otherwise the committee decides.
 */
export function isDecidableOnchain(descriptor: OperatorDescriptor, maxElements: number): boolean {
  if (!onchainKernels.includes(descriptor.kernel) || descriptor.outputDtype !== 'float32') return false
  return [descriptor.outputShape, ...descriptor.inputShapes].every((shape) => elementCount(shape) <= maxElements)
}

/**
 * Where two traces of the same step first part: the smallest j with c_j different (0 when they start
 * from different states or steps), `min(m_a, m_b) + 1` when one is a prefix of the other,
 * `m + 1` when only the final claim (S_{i+1}) differs, and null for identical traces. This is the j the
 * operator bisection converges on (element j for arbitration, m + 1 for the StateAssembly question).
 */
export function firstDivergence(a: StepTrace, b: StepTrace): number | null {
  const common = Math.min(a.commitments.length, b.commitments.length)
  for (let j = 0; j < common; j++) if (a.commitments[j] !== b.commitments[j]) return j
  if (a.commitments.length !== b.commitments.length) return common
  return a.finalClaim === b.finalClaim ? null : common
}
