import {choleskySolve} from './choleskySolve.js'

/** y ~ x weights + bias: `weights` is inputs x outputs, row-major float64. */
export type AffineMap = {inputs: number; outputs: number; weights: Float64Array; bias: Float64Array}

/**
 * Ridge regression from running sums (float64): each pair is added once, and a fit after any number of
 * pairs costs one solve, not a pass over all pairs again. The attack bench adds leaked pairs in growing
 * batches (1, 10, 100, ... 10000) and fits after each, so this keeps the whole curve at the price of the
 * largest fit.
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

  /** Adds one pair: x[xOffset .. xOffset + inputs) -> y[yOffset .. yOffset + outputs). */
  add(x: ArrayLike<number>, y: ArrayLike<number>, xOffset = 0, yOffset = 0): void {
    const d = this.inputs
    this.count++
    for (let i = 0; i < d; i++) {
      const xi = x[xOffset + i] as number
      if (xi === 0) continue
      this.sumX[i] = (this.sumX[i] as number) + xi
      const row = i * d
      for (let k = i; k < d; k++) this.sumXX[row + k] = (this.sumXX[row + k] as number) + xi * (x[xOffset + k] as number)
    }
    for (let j = 0; j < this.outputs; j++) {
      const yj = y[yOffset + j] as number
      if (yj === 0) continue
      this.sumY[j] = (this.sumY[j] as number) + yj
      const row = j * d
      for (let i = 0; i < d; i++) this.sumYX[row + i] = (this.sumYX[row + i] as number) + yj * (x[xOffset + i] as number)
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

/** Applies an affine map to `count` rows of `x` (count x inputs): count x outputs, float64. */
export function applyAffine(map: AffineMap, x: ArrayLike<number>, count: number): Float64Array {
  const {inputs, outputs, weights, bias} = map
  const y = new Float64Array(count * outputs)
  for (let t = 0; t < count; t++) {
    const row = t * outputs
    y.set(bias, row)
    for (let i = 0; i < inputs; i++) {
      const xi = x[t * inputs + i] as number
      if (xi === 0) continue
      const w = i * outputs
      for (let j = 0; j < outputs; j++) y[row + j] = (y[row + j] as number) + xi * (weights[w + j] as number)
    }
  }
  return y
}
