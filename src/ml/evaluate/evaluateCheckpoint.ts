import * as tf from '@tensorflow/tfjs'
import {selectBackend} from '../backend/selectBackend.js'
import type {BackendChoice} from '../backend/runtimeId.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'
import {samplesFor} from '../data/samplesFor.js'
import {forward} from '../model/forward.js'
import {modelWeights} from '../model/initialWeights.js'
import {type JobSpec, lossOf} from '../spec/schema.js'
import {CheckpointMismatchError} from '../train/errors.js'
import {lossTensor} from '../train/lossTensor.js'
import {batchOf} from '../train/trainingSession.js'

export type Evaluation = {
  /** Fraction of the test samples classified correctly (argmax); NaN for a regression (it has no classes). */
  testAccuracy: number
  /** Mean loss over those samples: the training loss (softmax cross-entropy, MSE or MAE; a regression's on normalised labels). */
  testLoss: number
  count: number
}

/**
 * Scores a checkpoint's weights (its bytes, or the decoded state) on the first `dataset.testLimit` samples of
 * MNIST's test split (a private job: its mapped test samples, docs/privacy.md) (the training loss and forward pass, without dropout), in batches of 500. Runs on
 * `backend` (default: wasm). The result is deterministic on one runtime id, which is what the early-stop rule
 * needs (docs/market.md, section 2: the solver and an exact-mode verifier measure on the proof's runtime and
 * get the same accuracy bit for bit); across runtimes a sample near a tie may flip.
 */
export async function evaluateCheckpoint({spec, checkpoint, backend}: {spec: JobSpec; checkpoint: Uint8Array | Checkpoint; backend?: BackendChoice | undefined}): Promise<Evaluation> {
  await selectBackend(backend ?? 'wasm')
  const cp = checkpoint instanceof Uint8Array ? decodeCheckpoint(checkpoint) : checkpoint
  const expected = modelWeights(spec.model)
  if (cp.weights.length !== expected.length || cp.weights.some((w, i) => w.name !== expected[i]?.name || w.shape.join(',') !== expected[i]?.shape.join(',')))
    throw new CheckpointMismatchError(`checkpoint: expected the weights of job ${spec.name} (${expected.map((w) => w.name).join(', ')}), got ${cp.weights.map((w) => w.name).join(', ')}`)
  const test = samplesFor(spec, 'test')
  const params = cp.weights.map((w) => tf.tensor(w.values, w.shape, 'float32'))
  const loss = lossOf(spec)
  let correct = 0
  let lossSum = 0
  try {
    const batch = 500
    for (let start = 0; start < test.count; start += batch) {
      const n = Math.min(batch, test.count - start)
      const rows = batchOf(test, Int32Array.from({length: n}, (_, i) => start + i))
      const [predictedTensor, lossesTensor] = tf.tidy(() => {
        const x = tf.tensor(rows.x, [n, ...spec.model.inputShape], 'float32')
        const outputs = forward(spec, params, x, {training: false})
        const y = tf.tensor(rows.y, outputs.shape, 'float32')
        const perSample = lossTensor(loss, y, outputs, 'none')
        return [test.task === 'classification' ? tf.argMax(outputs, -1) : undefined, perSample]
      })
      // read asynchronously: a GPU backend has no synchronous read in Node
      const predicted = predictedTensor ? ((await predictedTensor.data()) as Int32Array) : undefined
      const losses = (await lossesTensor.data()) as Float32Array
      predictedTensor?.dispose()
      lossesTensor.dispose()
      // a language model is scored per token: every position's prediction of the next token
      const positions = test.task === 'classification' ? test.positions : 1
      for (let i = 0; i < n * positions; i++) if (test.task === 'classification' && predicted?.[i] === test.labels[start * positions + i]) correct++
      for (let i = 0; i < n; i++) lossSum += losses[i] as number
    }
  } finally {
    for (const p of params) p.dispose()
  }
  if (test.task === 'regression') return {testAccuracy: Number.NaN, testLoss: lossSum / test.count, count: test.count}
  const positions = test.task === 'classification' ? test.positions : 1
  return {testAccuracy: correct / (test.count * positions), testLoss: lossSum / test.count, count: test.count}
}
