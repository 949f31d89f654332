import {BaseError} from '../../errors/base.js'
import {type KernelCall, withKernelHookSync} from '../kernels/kernelHook.js'
import {addFlops, type FlopCount, kernelFlops, zeroFlops} from './kernelFlops.js'

/** A kernel's calls and FLOPs during a measurement. */
export type KernelTally = {calls: number; flops: FlopCount}

/** What an instrumented run counted. */
export type FlopMeasurement = {
  /** FLOPs of every counted kernel call, by class. */
  flops: FlopCount
  /** Per kernel name: calls and FLOPs (data-movement kernels appear with 0 FLOPs). */
  kernels: Record<string, KernelTally>
  /** Kernels the counting rules do not know, with their call counts: their FLOPs are missing from `flops`. */
  uncounted: Record<string, number>
}

export class KernelCountError extends BaseError {
  override name = 'KernelCountError'
}

/**
 * Runs `fn` synchronously with every kernel registered for the active tfjs backend wrapped (the shared kernel
 * hook of src/ml/kernels), and counts each executed kernel call's FLOPs with {@link kernelFlops}
 * (docs/market.md, section 1). Only top-level calls count (those the engine dispatched): a kernel that runs
 * other kernels from inside (the wasm Conv2DBackpropFilter fix runs BatchMatMul) is counted once, by its own
 * rule. The original kernel configs are put back before this returns or throws, so nothing outside `fn` is
 * counted or slowed. A kernel with no rule is listed in `uncounted` rather than ignored.
 *
 * `fn` must do its work synchronously (a one-thread TrainingSession run with no boundary callback does); work left for
 * later would run unwrapped and uncounted.
 */
export function countKernelFlops<T>(fn: () => T): {result: T; measurement: FlopMeasurement} {
  const measurement: FlopMeasurement = {flops: zeroFlops(), kernels: {}, uncounted: {}}
  const record = ({kernelName, inputs, attrs, outputs}: KernelCall) => {
    const shapes = Object.fromEntries(Object.entries(inputs).map(([name, info]) => [name, info == null ? info : info.shape]))
    const flops = kernelFlops(kernelName, {inputs: shapes, outputs: outputs.map((o) => o.shape), attrs: attrs as Record<string, unknown> | undefined})
    if (flops === undefined) {
      measurement.uncounted[kernelName] = (measurement.uncounted[kernelName] ?? 0) + 1
      return
    }
    const tally = (measurement.kernels[kernelName] ??= {calls: 0, flops: zeroFlops()})
    tally.calls++
    addFlops(tally.flops, flops)
    addFlops(measurement.flops, flops)
  }
  return {result: withKernelHookSync(record, fn), measurement}
}
