import * as tf from '@tensorflow/tfjs'

import {selectBackend} from '../../src/ml/backend/index.js'
import {initialCheckpoint} from '../../src/ml/checkpoint/index.js'
import type {JobSpec} from '../../src/ml/spec/index.js'
import {TrainingSession} from '../../src/ml/train/index.js'
import {type KernelShares, kernelShares} from './kernelShares.js'

/**
 * Each wasm kernel's share of `spec`'s training step: after `warmupSteps`, `steps` steps under tf.profile (whose
 * wasm timer is the wall clock around each kernel call), over their wall time. The step is TrainingSession's, the
 * one trainJob runs, with its per-step loss read; checkpoints are not stored here, so the shares are of the step alone.
 */
export async function profileKernels(spec: JobSpec, warmupSteps: number, steps: number): Promise<KernelShares> {
  await selectBackend('wasm')
  const session = new TrainingSession(spec)
  try {
    session.load(initialCheckpoint(spec))
    await session.run(warmupSteps)
    let wallMs = 0
    const profile = await tf.profile(async () => {
      const started = performance.now()
      await session.run(session.step + steps, {onStep: () => {}})
      wallMs = performance.now() - started
    })
    const timings = profile.kernels.map((k) => ({name: k.name, ms: k.kernelTimeMs as number}))
    return kernelShares({timings, steps, stepMs: wallMs / steps})
  } finally {
    session.dispose()
  }
}
