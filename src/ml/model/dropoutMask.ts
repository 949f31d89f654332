import {prngStream} from '../prng/prngStream.js'

/**
 * The dropout mask of layer `layer` at training step `step`: for each activation element (row-major,
 * batch first) the stream labelled `gensyn/dropout/v1 seed=<seed> step=<step> layer=<layer>` gives a
 * unit u in [0, 1); the element is dropped (0) when u < rate, else kept and scaled by
 * fround(1 / (1 - rate)) (inverted dropout). `skip` elements of the stream are passed over first: a micro-batch's
 * mask is its rows of the whole batch's (src/ml/train/microBatches.ts). tfjs's own dropout draws from tf.randomUniform, whose seed
 * would give the same mask every step, so gensyn does not use it.
 */
export function dropoutMask({seed, step, layer, size, rate, skip = 0}: {seed: number; step: number; layer: number; size: number; rate: number; skip?: number}): Float32Array {
  const mask = new Float32Array(size)
  const keep = Math.fround(1 / (1 - rate))
  const stream = prngStream(`gensyn/dropout/v1 seed=${seed} step=${step} layer=${layer}`)
  for (let i = 0; i < skip; i++) stream.nextUnit()
  for (let i = 0; i < size; i++) mask[i] = stream.nextUnit() < rate ? 0 : keep
  return mask
}
