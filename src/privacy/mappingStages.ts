import type {Hex} from 'viem'
import {prngStream} from '../ml/prng/prngStream.js'
import type {PrivacyMapping} from '../ml/spec/schema.js'
import {gaussian, randomOrthogonal} from './randomOrthogonal.js'

/** MNIST's image side and feature count: every mapping maps 784 features to 784 features. */
export const imageSide = 28
export const featureCount = imageSide * imageSide

/**
 * One stage of a mapping on flattened features: y = activation(x kernel + bias), with `kernel` [in, out]
 * row-major float32 (a tfjs dense layer's kernel, so the stage is exactly one dense layer of the wrapped model).
 */
export type MappingStage = {kernel: Float32Array; bias?: Float32Array | undefined; activation: 'linear' | 'tanh'}

/**
 * How strongly tanh-mix saturates: the rotated features (std ~0.33 on MNIST) are scaled by this before tanh, so
 * about 70 % of the pre-activations lie beyond |z| > 2 (69.5 % over 300 training images, one key). Measured on
 * the MLP fixture (one seed, a linear attacker with 3000 known pairs): gain 4 cost no accuracy and left a
 * reconstruction error of 0.04, gain 16 cost 0.6 points and left 0.11, gain 64 cost 3 points and left 0.14.
 */
export const tanhMixGain = 16
/** local's off-centre filter taps are this times N(0, 1): close enough to a delta for a 3x3 CNN to absorb. */
export const localNeighbourTap = 0.25

function label(mapping: PrivacyMapping, key: Hex, part: string): string {
  return `gensyn/privacy/v1 mapping=${mapping} key=${key} part=${part}`
}

/** x -> x Q for a Haar-random orthogonal Q: distances and angles are kept, the coordinates are gone. */
function orthogonal(key: Hex): MappingStage[] {
  return [{kernel: Float32Array.from(randomOrthogonal(prngStream(label('orthogonal', key, 'rotation')), featureCount)), activation: 'linear'}]
}

/**
 * Keeps the 2-D layout (docs/privacy.md): a keyed 3x3 convolution (zero padding; centre tap 1, the others
 * 0.25 x N(0, 1)), then a keyed gain per pixel in [0.5, 1.5). Tuned on the CNN fixture (bench/privacy.ts): a
 * filter far from a delta or per-pixel signs cost a 3x3 CNN 1 to 3 points of accuracy; this costs none. The
 * price is that it hides little: a mapped digit still looks like the digit.
 */
function local(key: Hex): MappingStage[] {
  const stream = prngStream(label('local', key, 'filter'))
  const taps = Array.from({length: 9}, (_, i) => (i === 4 ? 1 : localNeighbourTap * gaussian(stream)))
  const gains = Array.from({length: featureCount}, () => 0.5 + stream.nextUnit())
  const kernel = new Float32Array(featureCount * featureCount)
  for (let row = 0; row < imageSide; row++)
    for (let col = 0; col < imageSide; col++) {
      const out = row * imageSide + col
      for (let dr = -1; dr <= 1; dr++)
        for (let dc = -1; dc <= 1; dc++) {
          const r = row + dr
          const c = col + dc
          if (r < 0 || r >= imageSide || c < 0 || c >= imageSide) continue
          kernel[(r * imageSide + c) * featureCount + out] = (gains[out] as number) * (taps[(dr + 1) * 3 + dc + 1] as number)
        }
    }
  return [{kernel, activation: 'linear'}]
}

/**
 * Not linear: y = tanh(g x A + c) B / g for keyed Haar-random rotations A and B, a keyed shift c ~ U(-1, 1) and
 * g = 16: tanh mostly saturates, so y is largely which side of 784 keyed hyperplanes x lies on. Angles survive
 * (a classifier needs them), magnitudes do not, and a pair (x, y) no longer pins down a linear map. It is not a
 * cipher: a digit's shape is what a classifier needs, so it is what a fit of the inverse recovers (docs/privacy.md).
 */
function tanhMix(key: Hex): MappingStage[] {
  const first = randomOrthogonal(prngStream(label('tanh-mix', key, 'rotation-in')), featureCount)
  const shift = prngStream(label('tanh-mix', key, 'shift'))
  const bias = Float32Array.from({length: featureCount}, () => shift.nextUnit() * 2 - 1)
  const second = randomOrthogonal(prngStream(label('tanh-mix', key, 'rotation-out')), featureCount)
  return [
    {kernel: Float32Array.from(first, (v) => v * tanhMixGain), bias, activation: 'tanh'},
    {kernel: Float32Array.from(second, (v) => v / tanhMixGain), activation: 'linear'},
  ]
}

/** The stages of a keyed mapping, derived from the key alone (the same key gives the same mapping, bit for bit). */
export function mappingStages(mapping: PrivacyMapping, key: Hex): MappingStage[] {
  switch (mapping) {
    case 'orthogonal':
      return orthogonal(key)
    case 'local':
      return local(key)
    case 'tanh-mix':
      return tanhMix(key)
  }
}
