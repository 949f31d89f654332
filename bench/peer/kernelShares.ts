/** One kernel call's time, as tf.profile records it (the wasm backend times each kernel call on the wall clock). */
export type KernelTiming = {name: string; ms: number}

export type KernelShare = {kernel: string; callsPerStep: number; msPerStep: number; share: number}

export type KernelShares = {
  /** Kernels by time, largest first. */
  kernels: KernelShare[]
  /** The step's wall time measured without the profiler. */
  stepMs: number
  /** What the step spends outside every kernel: tape, tidy, batch assembly, dispatch (stepMs - kernel time). */
  outsideMs: number
  outsideShare: number
}

/**
 * Each kernel's share of one training step: the kernel calls of `steps` profiled steps summed per kernel name,
 * divided by `steps`, over the step's unprofiled wall time `stepMs` (the profiler's own bookkeeping adds time
 * between kernels, never inside one, so kernel times stay true while the profiled step's wall time does not).
 */
export function kernelShares({timings, steps, stepMs}: {timings: KernelTiming[]; steps: number; stepMs: number}): KernelShares {
  if (!(steps > 0) || !(stepMs > 0)) throw new RangeError(`kernelShares: expected positive steps and stepMs, got ${steps} and ${stepMs}`)
  const byName = new Map<string, {calls: number; ms: number}>()
  for (const {name, ms} of timings) {
    const entry = byName.get(name) ?? {calls: 0, ms: 0}
    entry.calls += 1
    entry.ms += ms
    byName.set(name, entry)
  }
  const kernels = [...byName.entries()]
    .map(([kernel, {calls, ms}]) => ({kernel, callsPerStep: calls / steps, msPerStep: ms / steps, share: ms / steps / stepMs}))
    .sort((a, b) => b.msPerStep - a.msPerStep || a.kernel.localeCompare(b.kernel))
  const outsideMs = stepMs - kernels.reduce((sum, k) => sum + k.msPerStep, 0)
  return {kernels, stepMs, outsideMs, outsideShare: outsideMs / stepMs}
}
