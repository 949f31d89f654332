import {featureCount} from '../mappingStages.js'
import {clipToPixels, type Attacker, type KnownPairs} from './attacker.js'
import {applyAffine, RidgeAccumulator} from './ridgeAccumulator.js'

/**
 * Ridge penalty of the linear attacker, relative to the mean eigenvalue of the pairs' Gram matrix. One fixed
 * value for every mapping and leak size; the best one depends on both. Measured with 1000 pairs (normalised
 * MSE at 1e-4 / 1e-3 / 1e-2): orthogonal 0.0003 / 0.0006 / 0.0031, local 0.004 / 0.016 (1e-3 / 1e-2), tanh-mix
 * 0.141 / 0.119 / 0.074. So near n = 784, where pairs barely outnumber features, an attacker who tunes it on
 * held-out pairs does better against tanh-mix than the bench's curve shows.
 */
export const linearRidge = 1e-3

/**
 * Fits one affine map mapped -> raw (784 x 784 + bias) to every pair seen, by ridge least squares in float64.
 * Exact against any linear mapping (orthogonal, local) once the pairs span the features the data uses
 * (fewer than 784 on MNIST: border pixels are always 0); below that it is close to the minimum-norm guess.
 */
export function linearAttacker(relativeLambda = linearRidge): Attacker {
  const ridge = new RidgeAccumulator(featureCount, featureCount)
  const x = new Float64Array(featureCount)
  const y = new Float64Array(featureCount)
  return {
    name: 'linear',
    observe({raw, mapped, count}: KnownPairs): void {
      for (let t = 0; t < count; t++) {
        x.set(mapped.subarray(t * featureCount, (t + 1) * featureCount))
        y.set(raw.subarray(t * featureCount, (t + 1) * featureCount))
        ridge.add(x, y)
      }
    },
    async reconstruct(mapped: Float32Array, count: number): Promise<Float32Array> {
      return clipToPixels(applyAffine(ridge.fit(relativeLambda), mapped, count))
    },
  }
}
