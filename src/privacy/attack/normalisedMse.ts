import {featureCount} from '../mappingStages.js'

/** The mean image of `count` rows (count x 784). */
export function meanImage(images: Float32Array, count: number): Float64Array {
  const mean = new Float64Array(featureCount)
  for (let t = 0; t < count; t++) for (let f = 0; f < featureCount; f++) mean[f] = (mean[f] as number) + (images[t * featureCount + f] as number)
  for (let f = 0; f < featureCount; f++) mean[f] = (mean[f] as number) / count
  return mean
}

/**
 * sum ||guess - truth||^2 / sum ||truth - reference||^2 over `count` images: 0 is an exact reconstruction, 1 is
 * no better than answering `reference` (the mean training image, which anyone knowing the data set's kind
 * can guess without a single pair) every time.
 */
export function normalisedMse(guess: Float32Array, truth: Float32Array, count: number, reference: Float64Array): number {
  let error = 0
  let baseline = 0
  for (let t = 0; t < count; t++)
    for (let f = 0; f < featureCount; f++) {
      const i = t * featureCount + f
      const x = truth[i] as number
      error += ((guess[i] as number) - x) ** 2
      baseline += (x - (reference[f] as number)) ** 2
    }
  return error / baseline
}
