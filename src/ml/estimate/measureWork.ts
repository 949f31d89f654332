import {performance} from 'node:perf_hooks'

import {type BackendChoice, type RuntimeId, selectBackend} from '../backend/index.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import type {JobSpec} from '../spec/schema.js'
import {TrainingSession} from '../train/trainingSession.js'
import {countKernelFlops, type FlopMeasurement, KernelCountError} from './countKernelFlops.js'
import {type FlopCount, totalFlops} from './kernelFlops.js'
import {opClasses} from './workTable.js'

export type MeasureWorkParameters = {
  spec: JobSpec
  /** Training steps counted with every kernel wrapped (from step 0 of the job). */
  steps: number
  backend?: BackendChoice | undefined
  /** Steps timed afterwards with no wrappers (the counted steps warm the backend up). Default: `steps`. */
  timedSteps?: number | undefined
}

export type WorkMeasurement = {
  runtime: RuntimeId
  steps: number
  /** Measured FLOPs per step by class (the counted steps' total / steps). */
  flopsByClass: FlopCount
  flopsPerStep: number
  /** Per kernel: calls and FLOPs per step. */
  kernels: FlopMeasurement['kernels']
  /** Kernels with no counting rule and their calls per step (docs/market.md, section 1). */
  uncounted: Record<string, number>
  timedSteps: number
  /** Wall-clock seconds per training step, unwrapped, after the counted steps. */
  wallSecondsPerStep: number
}

/**
 * Measures one job's work per training step: real TrainingSession steps on real MNIST on `backend`, first
 * with every kernel counted ({@link countKernelFlops}), then timed with the kernels unwrapped.
 *
 * @throws BackendUnavailableError when the backend cannot be loaded
 */
export async function measureWork({spec, steps, backend = 'wasm', timedSteps = steps}: MeasureWorkParameters): Promise<WorkMeasurement> {
  if (!Number.isInteger(steps) || steps < 1) throw new KernelCountError(`steps: expected a positive integer, got ${steps}`)
  const runtime = await selectBackend(backend)
  // one thread: the kernels counted are this thread's
  const session = new TrainingSession(spec, {threads: 1})
  try {
    session.load(initialCheckpoint(spec))
    // run() with no boundary callback trains synchronously, so every step happens while the kernels are wrapped
    const {result, measurement} = countKernelFlops(() => session.run(steps))
    await result
    if (session.step !== steps) throw new KernelCountError(`measured ${session.step} steps while the kernels were wrapped, expected ${steps}`)
    const perStep = (n: number) => n / steps
    const flopsByClass = Object.fromEntries(opClasses.map((c) => [c, perStep(measurement.flops[c])])) as FlopCount
    const kernels = Object.fromEntries(
      Object.entries(measurement.kernels).map(([name, tally]) => [
        name,
        {calls: perStep(tally.calls), flops: Object.fromEntries(opClasses.map((c) => [c, perStep(tally.flops[c])])) as FlopCount},
      ]),
    )
    const uncounted = Object.fromEntries(Object.entries(measurement.uncounted).map(([name, calls]) => [name, perStep(calls)]))
    let wallSecondsPerStep = Number.NaN
    if (timedSteps > 0) {
      const start = performance.now()
      await session.run(steps + timedSteps) // reads the last loss back, so queued work is finished
      wallSecondsPerStep = (performance.now() - start) / 1000 / timedSteps
    }
    return {runtime, steps, flopsByClass, flopsPerStep: totalFlops(flopsByClass), kernels, uncounted, timedSteps, wallSecondsPerStep}
  } finally {
    session.dispose()
  }
}
