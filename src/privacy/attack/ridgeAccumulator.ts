import * as tf from '@tensorflow/tfjs'
import {choleskySolve} from './choleskySolve.js'

/** y ~ x weights + bias: `weights` is inputs x outputs, row-major float64. */
export type AffineMap = {inputs: number; outputs: number; weights: Float64Array; bias: Float64Array}

/**
 * Ridge regression from running sums (float64): each pair is added once, and a fit after any number of
 * pairs costs one solve, not a pass over all pairs again. The attack bench adds leaked pairs in growing
 * batches (1, 10, 100, ... 10000) and fits after each: the whole curve costs one pass over the largest leak
 * and a solve per point.
 */
export class RidgeAccumulator {
  readonly inputs: number
  readonly outputs: number
  count = 0
  private readonly sumX: Float64Array
  private readonly sumY: Float64Array
  /** sum x x^T, upper triangle only (row-major, inputs x inputs). */
  private readonly sumXX: Float64Array
  /** sum y x^T (outputs x inputs): a row per output, so a sparse y (raw MNIST is ~80% zeros) updates few rows. */
  private readonly sumYX: Float64Array

  constructor(inputs: number, outputs: number) {
    this.inputs = inputs
    this.outputs = outputs
    this.sumX = new Float64Array(inputs)
    this.sumY = new Float64Array(outputs)
    this.sumXX = new Float64Array(inputs * inputs)
    this.sumYX = new Float64Array(outputs * inputs)
  }

  /** Adds one pair x -> y (length `inputs` and `outputs`; float64 so the hot loops see one array type). */
  add(x: Float64Array, y: Float64Array): void {
    const d = this.inputs
    const {sumX, sumY, sumXX, sumYX} = this
    this.count++
    for (let i = 0; i < d; i++) {
      const xi = x[i] as number
      if (xi === 0) continue
      sumX[i] = (sumX[i] as number) + xi
      const row = i * d
      for (let k = i; k < d; k++) sumXX[row + k] = (sumXX[row + k] as number) + xi * (x[k] as number)
    }
    for (let j = 0; j < this.outputs; j++) {
      const yj = y[j] as number
      if (yj === 0) continue
      sumY[j] = (sumY[j] as number) + yj
      const row = j * d
      for (let i = 0; i < d; i++) sumYX[row + i] = (sumYX[row + i] as number) + yj * (x[i] as number)
    }
  }

  /**
   * The ridge fit on the pairs so far: centred (the bias is the means' difference, never shrunk), penalty
   * `relativeLambda` times the mean eigenvalue of the centred Gram matrix, so one setting means the same at
   * every count. With fewer pairs than inputs this approaches the minimum-norm interpolating solution.
   * With no pairs the map is the zero map.
   */
  fit(relativeLambda: number): AffineMap {
    const d = this.inputs
    const m = this.outputs
    const n = Math.max(this.count, 1)
    const meanX = Float64Array.from(this.sumX, (s) => s / n)
    const meanY = Float64Array.from(this.sumY, (s) => s / n)
    const gram = new Float64Array(d * d)
    let trace = 0
    for (let i = 0; i < d; i++)
      for (let k = i; k < d; k++) {
        const centred = (this.sumXX[i * d + k] as number) - n * (meanX[i] as number) * (meanX[k] as number)
        gram[i * d + k] = centred
        gram[k * d + i] = centred
        if (k === i) trace += centred
      }
    // A tiny floor keeps A positive definite when every input is constant (one pair, or an all-zero window).
    const lambda = Math.max((relativeLambda * trace) / d, 1e-9)
    for (let i = 0; i < d; i++) gram[i * d + i] = (gram[i * d + i] as number) + lambda
    const weights = new Float64Array(d * m)
    for (let i = 0; i < d; i++)
      for (let j = 0; j < m; j++) weights[i * m + j] = (this.sumYX[j * d + i] as number) - n * (meanX[i] as number) * (meanY[j] as number)
    choleskySolve(gram, weights, d, m)
    const bias = Float64Array.from(meanY)
    for (let i = 0; i < d; i++) {
      const mx = meanX[i] as number
      if (mx === 0) continue
      for (let j = 0; j < m; j++) bias[j] = (bias[j] as number) - mx * (weights[i * m + j] as number)
    }
    return {inputs: d, outputs: m, weights, bias}
  }
}

/**
 * Applies an affine map to `count` rows of `x` (count x inputs) on the active tfjs backend: count x outputs.
 * The product runs in float32, which is enough once the weights were solved in float64 (where the
 * conditioning of the normal equations matters): a 1000 x 784 x 784 product takes about 1.1 s on wasm.
 */
export function applyAffine(map: AffineMap, x: Float32Array, count: number): Float32Array {
  const {inputs, outputs, weights, bias} = map
  return tf.tidy(() => {
    const product = tf.matMul(tf.tensor2d(x.subarray(0, count * inputs), [count, inputs]), tf.tensor2d(Float32Array.from(weights), [inputs, outputs]))
    return tf.add(product, tf.tensor1d(Float32Array.from(bias))).dataSync() as Float32Array
  })
}
