import * as tf from '@tensorflow/tfjs'
import {permutation, prngStream} from '../../ml/prng/prngStream.js'
import {featureCount} from '../mappingStages.js'
import type {Attacker, KnownPairs} from './attacker.js'

export type MlpAttackerOptions = {
  /** Hidden ReLU units of the inverse (784 -> hidden -> 784). */
  hidden?: number
  /** Training steps for n known pairs: bounded by the caller, whose time budget it is. */
  steps?: (pairs: number) => number
  batchSize?: number
  learningRate?: number
  /** Seeds the initial weights and the batch order, so a rerun on one runtime gives the same guesses. */
  seed?: number
}

/**
 * About 10 epochs of 128, at least 200 and at most 800 steps (35 to 42 ms each on wasm, 2 cores): the bench's
 * time budget, not convergence. Measured on tanh-mix with 10000 pairs and 1000 test targets (one key): 400 steps
 * reach normalised MSE 0.097, 800 steps 0.082, so it still falls with more.
 */
export const defaultMlpSteps = (pairs: number): number => Math.min(800, Math.max(200, Math.ceil((10 * pairs) / 128)))

/** The rows of `source` (row length `width`) at `indices`, packed. */
function gatherRows(source: Float32Array, indices: ArrayLike<number>, width: number): Float32Array {
  const out = new Float32Array(indices.length * width)
  for (let j = 0; j < indices.length; j++) {
    const i = indices[j] as number
    out.set(source.subarray(i * width, (i + 1) * width), j * width)
  }
  return out
}

/**
 * A non-linear inverse: a small MLP (784 -> 512 ReLU -> 784 sigmoid) trained on the known pairs to map mapped
 * images back to raw ones (Adam, per-pixel binary cross-entropy; inputs standardised per feature with the
 * pairs' own statistics). It is refitted from scratch on every pair seen at each reconstruction. The only
 * attacker here that can undo a saturating mapping such as tanh-mix, given enough pairs.
 */
export function mlpAttacker(options: MlpAttackerOptions = {}): Attacker {
  const {hidden = 512, steps = defaultMlpSteps, batchSize = 128, learningRate = 1e-3, seed = 0} = options
  const raws: Float32Array[] = []
  const mappeds: Float32Array[] = []
  let count = 0
  return {
    name: 'mlp',
    observe({raw, mapped, count: n}: KnownPairs): void {
      raws.push(raw.slice(0, n * featureCount))
      mappeds.push(mapped.slice(0, n * featureCount))
      count += n
    },
    async reconstruct(targets: Float32Array, targetCount: number): Promise<Float32Array> {
      const raw = new Float32Array(count * featureCount)
      const mapped = new Float32Array(count * featureCount)
      let offset = 0
      for (const [i, part] of raws.entries()) {
        raw.set(part, offset)
        mapped.set(mappeds[i] as Float32Array, offset)
        offset += part.length
      }
      const mean = new Float32Array(featureCount)
      const scale = new Float32Array(featureCount)
      for (let t = 0; t < count; t++)
        for (let f = 0; f < featureCount; f++) mean[f] = (mean[f] as number) + (mapped[t * featureCount + f] as number) / count
      for (let t = 0; t < count; t++)
        for (let f = 0; f < featureCount; f++) scale[f] = (scale[f] as number) + ((mapped[t * featureCount + f] as number) - (mean[f] as number)) ** 2 / count
      // A feature constant over the pairs (a border pixel under local) carries nothing: scale 1 leaves it at 0.
      for (let f = 0; f < featureCount; f++) scale[f] = (scale[f] as number) > 1e-12 ? 1 / Math.sqrt(scale[f] as number) : 1
      const standardise = (x: tf.Tensor2D): tf.Tensor2D => tf.mul(tf.sub(x, tf.tensor1d(mean)), tf.tensor1d(scale))

      const model = tf.sequential({
        layers: [
          tf.layers.dense({inputShape: [featureCount], units: hidden, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({seed})}),
          tf.layers.dense({units: featureCount, kernelInitializer: tf.initializers.glorotUniform({seed: seed + 1})}),
        ],
      })
      const optimizer = tf.train.adam(learningRate)
      try {
        const batch = Math.min(batchSize, count)
        let order: Int32Array = new Int32Array(0)
        let cursor = 0
        let epoch = 0
        for (let step = 0; step < steps(count); step++) {
          if (cursor + batch > order.length) {
            order = permutation(prngStream(`gensyn/bench/privacy/mlp-attack seed=${seed} pairs=${count} epoch=${epoch++}`), count)
            cursor = 0
          }
          const indices = order.subarray(cursor, cursor + batch)
          cursor += batch
          tf.tidy(() => {
            const x = standardise(tf.tensor2d(gatherRows(mapped, indices, featureCount), [batch, featureCount]))
            const y = tf.tensor2d(gatherRows(raw, indices, featureCount), [batch, featureCount])
            optimizer.minimize(() => tf.losses.sigmoidCrossEntropy(y, model.apply(x) as tf.Tensor) as tf.Scalar)
          })
        }
        const guess = new Float32Array(targetCount * featureCount)
        for (let start = 0; start < targetCount; start += 500) {
          const n = Math.min(500, targetCount - start)
          const rows = tf.tidy(() => {
            const x = standardise(tf.tensor2d(targets.subarray(start * featureCount, (start + n) * featureCount), [n, featureCount]))
            return tf.sigmoid(model.predict(x) as tf.Tensor).dataSync() as Float32Array
          })
          guess.set(rows, start * featureCount)
        }
        return guess
      } finally {
        model.dispose()
        optimizer.dispose()
      }
    },
  }
}
