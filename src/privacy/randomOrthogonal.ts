import type {PrngStream} from '../ml/prng/prngStream.js'

/** A standard normal draw: Box-Muller on two 32-bit uniforms in (0, 1]. */
export function gaussian(stream: PrngStream): number {
  const u1 = (stream.nextU32() + 1) / 4294967296
  const u2 = stream.nextU32() / 4294967296
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
}

/**
 * A Haar-random n x n orthogonal matrix (row-major float64): Gaussian rows made orthonormal by modified
 * Gram-Schmidt (equivalent to a QR with a positive diagonal, so the distribution is uniform over the
 * orthogonal group). Plain float64 arithmetic plus Math.log/cos/sqrt: the same stream gives the same matrix on
 * every machine running V8.
 */
export function randomOrthogonal(stream: PrngStream, n: number): Float64Array {
  const q = new Float64Array(n * n)
  for (let i = 0; i < q.length; i++) q[i] = gaussian(stream)
  for (let i = 0; i < n; i++) {
    const r = i * n
    for (let j = 0; j < i; j++) {
      const o = j * n
      let dot = 0
      for (let k = 0; k < n; k++) dot += (q[r + k] as number) * (q[o + k] as number)
      for (let k = 0; k < n; k++) q[r + k] = (q[r + k] as number) - dot * (q[o + k] as number)
    }
    let norm = 0
    for (let k = 0; k < n; k++) norm += (q[r + k] as number) ** 2
    norm = Math.sqrt(norm)
    for (let k = 0; k < n; k++) q[r + k] = (q[r + k] as number) / norm
  }
  return q
}
