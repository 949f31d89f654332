import * as tf from '@tensorflow/tfjs'

/**
 * Gradients scaled so their global L2 norm is at most `clipNorm` (inside tf.tidy): norm = sqrt(sum over every
 * gradient of sum(g^2)), each g x clipNorm / max(norm, clipNorm). Below the bound the factor is exactly 1.
 */
export function clipByGlobalNorm(grads: readonly tf.Tensor[], clipNorm: number): tf.Tensor[] {
  const bound = tf.scalar(Math.fround(clipNorm), 'float32')
  const squares = grads.map((g) => tf.sum(tf.square(g)))
  const total = squares.slice(1).reduce((sum, next) => tf.add(sum, next), squares[0] as tf.Tensor)
  const factor = tf.div(bound, tf.maximum(tf.sqrt(total), bound))
  return grads.map((g) => tf.mul(g, factor))
}
