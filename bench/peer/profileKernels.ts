import * as tf from '@tensorflow/tfjs'

import {selectBackend} from '../../src/ml/backend/index.js'
import {initialCheckpoint} from '../../src/ml/checkpoint/index.js'
import type {JobSpec} from '../../src/ml/spec/index.js'
import {TrainingSession} from '../../src/ml/train/index.js'
import {type KernelShares, kernelShares} from './kernelShares.js'

/**
 * Each wasm kernel's share of `spec`'s training step: after `warmupSteps`, the step's wall time without the
 * profiler (the faster of two windows of `steps` steps, before and after), and the kernel calls of `steps`
 * steps under tf.profile (whose wasm timer is the wall clock around each call). The step is TrainingSession's,
 * the one trainJob runs; checkpoints are not stored here, so the shares are of the step alone.
 */
export async function profileKernels(spec: JobSpec, warmupSteps: number, steps: number): Promise<KernelShares> {
  await selectBackend('wasm')
  const session = new TrainingSession(spec)
  try {
    session.load(initialCheckpoint(spec))
    await session.run(warmupSteps)
    const timed = async () => {
      const started = performance.now()
      await session.run(session.step + steps, {onStep: () => {}})
      return (performance.now() - started) / steps
    }
    const before = await timed()
    const profile = await tf.profile(async () => {
      await session.run(session.step + steps, {onStep: () => {}})
    })
    const after = await timed()
    const timings = profile.kernels.map((k) => ({name: k.name, ms: k.kernelTimeMs as number}))
    return kernelShares({timings, steps, stepMs: Math.min(before, after)})
  } finally {
    session.dispose()
  }
}
