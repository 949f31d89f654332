import {stepFlops} from '../../src/ml/estimate/index.js'
import {totalFlops} from '../../src/ml/estimate/kernelFlops.js'
import type {JobSpec} from '../../src/ml/spec/index.js'

/**
 * The FLOPs of one training step's forward pass, loss and backward pass, counted from the model's shapes by the
 * project's own work estimator (`stepFlops`: the step unrolled into kernel calls, 2 FLOPs per multiply-add, one
 * per elementwise op). The backward pass holds each weighted layer's weight gradient and every input gradient
 * except the first weighted layer's (nothing needs it), as both tfjs and PyTorch compute it. The optimizer's
 * update is left out: it is elementwise and differs between implementations. The same count divides both sides'
 * step rates, so the GFLOP/s ratio is the step-rate ratio.
 */
export function peerFlops(spec: JobSpec): number {
  const {byPhase} = stepFlops(spec)
  return totalFlops(byPhase.forward) + totalFlops(byPhase.loss) + totalFlops(byPhase.backward)
}
