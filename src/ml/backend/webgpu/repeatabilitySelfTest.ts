import {createHash} from 'node:crypto'

import * as tf from '@tensorflow/tfjs'

import {BackendUnavailableError} from '../errors.js'

/**
 * Replays one training step of a small conv + dense network twice on the active backend and compares the
 * bits of the updated weights. The shapes are chosen so that, without gensyn's pinned flags, tfjs-backend-webgpu
 * would take its atomics-based paths (split-K matmul for a weight gradient with a long inner dimension).
 * Returns the hex sha256 of the updated weights (the same on every call of a repeatable adapter).
 *
 * @throws BackendUnavailableError when the two replays differ: this adapter is not run-to-run repeatable
 */
export async function repeatabilitySelfTest(backend: string): Promise<string> {
  const first = await oneStep()
  const second = await oneStep()
  if (first !== second)
    throw new BackendUnavailableError(
      `backend ${backend} is unavailable: its self-test replayed one training step twice and got different bits (${first.slice(0, 12)} vs ${second.slice(0, 12)}); use --backend wasm`,
    )
  return first
}

async function oneStep(): Promise<string> {
  const hash = createHash('sha256')
  const weights = tf.tidy(() => {
    const x: tf.Tensor4D = tf.randomUniform([64, 8, 8, 2], -1, 1, 'float32', 1)
    const labels = tf.oneHot(tf.randomUniform([64], 0, 10, 'int32', 2), 10)
    const kernel = tf.randomNormal([3, 3, 2, 4], 0, 0.3, 'float32', 3)
    const dense = tf.randomNormal([256, 10], 0, 0.1, 'float32', 4)
    const loss = (k: tf.Tensor, w: tf.Tensor) =>
      tf.losses.softmaxCrossEntropy(labels, tf.matMul(tf.relu(tf.conv2d(x as tf.Tensor4D, k as tf.Tensor4D, 1, 'same')).reshape([64, 256]), w as tf.Tensor2D))
    const [dk, dw] = tf.grads(loss)([kernel, dense]) as [tf.Tensor, tf.Tensor]
    return [kernel.sub(dk.mul(0.1)), dense.sub(dw.mul(0.1))]
  })
  for (const w of weights) {
    hash.update(new Uint8Array(((await w.data()) as Float32Array).buffer))
    w.dispose()
  }
  return hash.digest('hex')
}
