import {permutation, prngStream} from '../prng/prngStream.js'

const cache = new Map<string, Int32Array>()

/**
 * The permutation of the training set for one epoch: Fisher-Yates over [0, datasetSize) driven by the
 * stream `gensyn/batch/v1 seed=<seed> size=<datasetSize> epoch=<epoch>` (see prngStream). Cached.
 */
export function epochPermutation({seed, datasetSize, epoch}: {seed: number; datasetSize: number; epoch: number}): Int32Array {
  const key = `${seed}:${datasetSize}:${epoch}`
  let perm = cache.get(key)
  if (!perm) {
    perm = permutation(prngStream(`gensyn/batch/v1 seed=${seed} size=${datasetSize} epoch=${epoch}`), datasetSize)
    if (cache.size > 64) cache.clear()
    cache.set(key, perm)
  }
  return perm
}

/**
 * The training-set indices of the batch used by step `step` (0-based: step s turns checkpoint state s
 * into state s + 1). The data is read as an endless stream of epochs, each a fresh permutation; step s
 * takes stream positions s*B .. s*B + B - 1, where position p is `epochPermutation(floor(p / N))[p mod N]`
 * (N = dataset size, B = batch size). A batch may straddle two epochs.
 */
export function batchIndices({seed, step, batchSize, datasetSize}: {seed: number; step: number; batchSize: number; datasetSize: number}): Int32Array {
  const out = new Int32Array(batchSize)
  for (let j = 0; j < batchSize; j++) {
    const position = step * batchSize + j
    const epoch = Math.floor(position / datasetSize)
    out[j] = epochPermutation({seed, datasetSize, epoch})[position - epoch * datasetSize] as number
  }
  return out
}
