import type {TraceHeader} from '../../protocol/disputeTypes.js'
import type {StepTrace} from '../types.js'

/** The trace header a party posts (or a committee member compares) for a step's trace. */
export function headerOf(trace: StepTrace): TraceHeader {
  return {opCount: trace.opCount, graphHash: trace.graphHash, finalCommitment: trace.finalCommitment}
}
