import type {JobSpec} from '../spec/schema.js'
import {addFlops, type FlopCount, kernelFlops, zeroFlops} from './kernelFlops.js'
import {type StepPhase, unrollStep} from './unrollStep.js'

/** Estimated FLOPs of one training step, by class, in total and per phase. */
export type StepFlops = {total: FlopCount; byPhase: Record<StepPhase, FlopCount>}

/**
 * The FLOPs of one training step of `spec`: its kernel calls ({@link unrollStep}) counted by the rules of
 * {@link kernelFlops}. Nothing runs: this is arithmetic on the model's shapes.
 *
 * @throws ModelSpecError when the model is invalid
 */
export function stepFlops(spec: JobSpec): StepFlops {
  const total = zeroFlops()
  const byPhase: Record<StepPhase, FlopCount> = {forward: zeroFlops(), loss: zeroFlops(), backward: zeroFlops(), optimizer: zeroFlops()}
  for (const op of unrollStep(spec)) {
    const flops = kernelFlops(op.kernelName, op)
    // the estimator only emits kernels the rules know: a miss is a bug here, not a property of the job
    if (flops === undefined) throw new RangeError(`stepFlops: no counting rule for ${op.kernelName}`)
    addFlops(total, flops)
    addFlops(byPhase[op.phase], flops)
  }
  return {total, byPhase}
}
