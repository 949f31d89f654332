import {featureCount} from '../mappingStages.js'
import {clipToPixels, type Attacker, type KnownPairs} from './attacker.js'
import {applyAffine, RidgeAccumulator} from './ridgeAccumulator.js'

/**
 * Ridge penalty of the linear attacker, relative to the mean eigenvalue of the pairs' Gram matrix: small
 * enough that a linear mapping is recovered to float32 precision once the pairs span the data's features,
 * large enough to damp the fit where pairs barely outnumber features.
 */
export const linearRidge = 1e-3

/**
 * Fits one affine map mapped -> raw (784 x 784 + bias) to every pair seen, by ridge least squares in float64.
 * Exact against any linear mapping (orthogonal, local) once the pairs span the features the data uses
 * (fewer than 784 on MNIST: border pixels are always 0); below that it is the minimum-norm guess.
 */
export function linearAttacker(relativeLambda = linearRidge): Attacker {
  const ridge = new RidgeAccumulator(featureCount, featureCount)
  return {
    name: 'linear',
    observe({raw, mapped, count}: KnownPairs): void {
      for (let t = 0; t < count; t++) ridge.add(mapped, raw, t * featureCount, t * featureCount)
    },
    async reconstruct(mapped: Float32Array, count: number): Promise<Float32Array> {
      return clipToPixels(applyAffine(ridge.fit(relativeLambda), mapped, count))
    },
  }
}
