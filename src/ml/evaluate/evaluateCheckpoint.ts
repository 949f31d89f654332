import * as tf from '@tensorflow/tfjs'
import {selectBackend} from '../backend/selectBackend.js'
import type {BackendName} from '../backend/runtimeId.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'
import {samplesFor} from '../data/samplesFor.js'
import {classCount} from '../model/analyzeModel.js'
import {forward} from '../model/forward.js'
import {modelWeights} from '../model/initialWeights.js'
import type {JobSpec} from '../spec/schema.js'
import {CheckpointMismatchError} from '../train/errors.js'

export type Evaluation = {
  /** Fraction of the first `dataset.testLimit` test images classified correctly (argmax). */
  testAccuracy: number
  /** Mean softmax cross-entropy over those images. */
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
export async function evaluateCheckpoint({spec, checkpoint, backend}: {spec: JobSpec; checkpoint: Uint8Array | Checkpoint; backend?: BackendName | undefined}): Promise<Evaluation> {
  await selectBackend(backend ?? 'wasm')
  const cp = checkpoint instanceof Uint8Array ? decodeCheckpoint(checkpoint) : checkpoint
  const expected = modelWeights(spec.model)
  if (cp.weights.length !== expected.length || cp.weights.some((w, i) => w.name !== expected[i]?.name || w.shape.join(',') !== expected[i]?.shape.join(',')))
    throw new CheckpointMismatchError(`checkpoint: expected the weights of job ${spec.name} (${expected.map((w) => w.name).join(', ')}), got ${cp.weights.map((w) => w.name).join(', ')}`)
  const test = samplesFor(spec, 'test')
  const params = cp.weights.map((w) => tf.tensor(w.values, w.shape, 'float32'))
  let correct = 0
  let lossSum = 0
  try {
    const batch = 500
    for (let start = 0; start < test.count; start += batch) {
      const n = Math.min(batch, test.count - start)
      const labels = test.labels.subarray(start, start + n)
      const [predicted, losses] = tf.tidy(() => {
        const x = tf.tensor(test.images.subarray(start * 784, (start + n) * 784), [n, ...spec.model.inputShape], 'float32')
        const y = tf.oneHot(tf.tensor1d(Int32Array.from(labels), 'int32'), classCount)
        const logits = forward(spec, params, x, {training: false})
        const loss = tf.losses.softmaxCrossEntropy(y, logits, undefined, undefined, tf.Reduction.NONE)
        return [tf.argMax(logits, 1).dataSync() as Int32Array, loss.dataSync() as Float32Array]
      })
      for (let i = 0; i < n; i++) {
        if (predicted[i] === labels[i]) correct++
        lossSum += losses[i] as number
      }
    }
  } finally {
    for (const p of params) p.dispose()
  }
  return {testAccuracy: correct / test.count, testLoss: lossSum / test.count, count: test.count}
}
