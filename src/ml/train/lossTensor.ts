import * as tf from '@tensorflow/tfjs'

import type {LossType} from '../spec/schema.js'

/**
 * The per-batch loss training minimises and evaluation reports: tfjs's softmaxCrossEntropy over one-hot targets,
 * meanSquaredError or absoluteDifference over values, averaged over the batch (`mean`) or one per sample (`none`).
 */
export function lossTensor(loss: LossType, targets: tf.Tensor, outputs: tf.Tensor, reduction: 'mean' | 'none' = 'mean'): tf.Tensor {
  if (reduction === 'mean') {
    if (loss === 'crossEntropy') return tf.losses.softmaxCrossEntropy(targets, outputs)
    return loss === 'mse' ? tf.losses.meanSquaredError(targets, outputs) : tf.losses.absoluteDifference(targets, outputs)
  }
  const none = tf.Reduction.NONE
  // per sample: cross-entropy per row (per position for a language model), squared or absolute error per element
  const elements =
    loss === 'crossEntropy'
      ? tf.losses.softmaxCrossEntropy(targets, outputs, undefined, undefined, none)
      : loss === 'mse'
        ? tf.losses.meanSquaredError(targets, outputs, undefined, none)
        : tf.losses.absoluteDifference(targets, outputs, undefined, none)
  return elements.rank > 1 ? tf.mean(elements, [...Array(elements.rank).keys()].slice(1)) : elements
}
