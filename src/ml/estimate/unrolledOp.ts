import type {KernelShapes} from './kernelFlops.js'

export type StepPhase = 'forward' | 'loss' | 'backward' | 'optimizer'

/** One kernel call a training step makes, as the estimator predicts it. */
export type UnrolledOp = KernelShapes & {
  phase: StepPhase
  /** The model layer the call belongs to (forward and backward), or the parameter's index (optimizer). */
  layer?: number | undefined
  kernelName: string
}
