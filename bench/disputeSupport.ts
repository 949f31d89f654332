import type {OperatorCorruption, StepTrace} from '../src/dispute/types.js'
import {trainJobWithOperatorCorruption} from '../src/dispute/corruptOperator.js'
import type {JobSpec} from '../src/ml/spec/schema.js'
import type {TrainResult} from '../src/ml/train/trainJob.js'
import type {BlobStore} from '../src/store/types.js'

export {createDisputeAgent} from '../src/dispute/createDisputeAgent.js'
export {stateAtStep} from '../src/dispute/stateHashes.js'
export {traceStep} from '../src/dispute/traceStep.js'

/**
 * Trains a proof with the first output of `kernel` at `step` corrupted where a one-ulp flip reaches the next
 * state (its largest value), and returns the element number of that operator in the honest trace.
 */
export async function corruptedTrainingFor({spec, store, trace, kernel, step}: {spec: JobSpec; store: BlobStore; trace: StepTrace; kernel: string; step: number}): Promise<{proof: TrainResult; corruption: OperatorCorruption; element: number}> {
  const index = trace.elements.findIndex((element) => element.descriptor.kernel === kernel)
  const element = trace.elements[index]
  if (!element) throw new Error(`${kernel} is not in the trace of step ${step}`)
  const values = new Float32Array(element.data.slice().buffer)
  let largest = 0
  for (let i = 1; i < values.length; i++) if (values[i]! > values[largest]!) largest = i
  const corruption: OperatorCorruption = {step, kernel, occurrence: 1, element: largest}
  return {proof: await trainJobWithOperatorCorruption({spec, store, corruption}), corruption, element: index + 1}
}
