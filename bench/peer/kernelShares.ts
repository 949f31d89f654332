/** One kernel call's time, as tf.profile records it (the wasm backend times each kernel call on the wall clock). */
export type KernelTiming = {name: string; ms: number}

export type KernelShare = {kernel: string; callsPerStep: number; msPerStep: number; share: number}

export type KernelShares = {
  /** Kernels by time, largest first. */
  kernels: KernelShare[]
  /** The profiled step's wall time. */
  stepMs: number
  /** What the step spends outside every kernel: tape, tidy, batch assembly, dispatch, the profiler's own records (stepMs - kernel time). */
  outsideMs: number
  outsideShare: number
}

/**
 * Each kernel's share of one training step: the kernel calls of `steps` profiled steps summed per kernel name,
 * divided by `steps`, over the profiled step's wall time `stepMs`, so the shares and the time outside kernels add
 * up to the step on a loaded machine too. An op with a custom gradient (tf.profile names it `<op>__op`) is left
 * out: its time is that of the kernels it calls, which are listed themselves.
 */
export function kernelShares({timings, steps, stepMs}: {timings: KernelTiming[]; steps: number; stepMs: number}): KernelShares {
  if (!(steps > 0) || !(stepMs > 0)) throw new RangeError(`kernelShares: expected positive steps and stepMs, got ${steps} and ${stepMs}`)
  const byName = new Map<string, {calls: number; ms: number}>()
  for (const {name, ms} of timings) {
    if (name.endsWith('__op')) continue
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
