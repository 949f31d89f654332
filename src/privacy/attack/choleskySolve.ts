import {AttackInputError} from '../errors.js'

/**
 * Solves A X = B for a symmetric positive definite A (d x d, row-major float64) and B (d x m, row-major) by
 * Cholesky, A = L L^T. `a` is overwritten with L (lower triangle) and `b` with X. Loops run along rows so
 * the inner loops read contiguous memory: a 784 x 784 system with 784 right-hand sides takes about a second
 * in plain JS, which is what lets the attack bench solve in float64 instead of float32.
 *
 * @throws AttackInputError when A is not positive definite (a pivot <= 0): a ridge term keeps it from happening
 */
export function choleskySolve(a: Float64Array, b: Float64Array, d: number, m: number): void {
  for (let i = 0; i < d; i++) {
    const ri = i * d
    for (let j = 0; j <= i; j++) {
      const rj = j * d
      let sum = a[ri + j] as number
      for (let k = 0; k < j; k++) sum -= (a[ri + k] as number) * (a[rj + k] as number)
      if (j < i) a[ri + j] = sum / (a[rj + j] as number)
      else {
        if (!(sum > 0)) throw new AttackInputError(`choleskySolve: matrix not positive definite at pivot ${i} (${sum})`)
        a[ri + i] = Math.sqrt(sum)
      }
    }
  }
  // L Z = B, row by row: Z[i] = (B[i] - sum_k<i L[i,k] Z[k]) / L[i,i]
  for (let i = 0; i < d; i++) {
    const bi = i * m
    for (let k = 0; k < i; k++) {
      const l = a[i * d + k] as number
      if (l === 0) continue
      const bk = k * m
      for (let c = 0; c < m; c++) b[bi + c] = (b[bi + c] as number) - l * (b[bk + c] as number)
    }
    const pivot = a[i * d + i] as number
    for (let c = 0; c < m; c++) b[bi + c] = (b[bi + c] as number) / pivot
  }
  // L^T X = Z, from the last row up: X[i] = (Z[i] - sum_k>i L[k,i] X[k]) / L[i,i]
  for (let i = d - 1; i >= 0; i--) {
    const bi = i * m
    for (let k = i + 1; k < d; k++) {
      const l = a[k * d + i] as number
      if (l === 0) continue
      const bk = k * m
      for (let c = 0; c < m; c++) b[bi + c] = (b[bi + c] as number) - l * (b[bk + c] as number)
    }
    const pivot = a[i * d + i] as number
    for (let c = 0; c < m; c++) b[bi + c] = (b[bi + c] as number) / pivot
  }
}
