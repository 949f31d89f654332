import * as tf from '@tensorflow/tfjs'

import type {LossType} from '../spec/schema.js'

/**
 * The per-batch loss training minimises and evaluation reports: tfjs's softmaxCrossEntropy over one-hot targets,
 * meanSquaredError or absoluteDifference over values, averaged over the batch (`mean`) or one per sample (`none`).
 */
export function lossTensor(loss: LossType, targets: tf.Tensor, outputs: tf.Tensor, reduction: 'mean' | 'none' = 'mean'): tf.Tensor {
  const mode = reduction === 'mean' ? tf.Reduction.MEAN : tf.Reduction.NONE
  switch (loss) {
    case 'crossEntropy':
      return reduction === 'mean' ? tf.losses.softmaxCrossEntropy(targets, outputs) : tf.losses.softmaxCrossEntropy(targets, outputs, undefined, undefined, mode)
    case 'mse':
      return reduction === 'mean' ? tf.losses.meanSquaredError(targets, outputs) : tf.mean(tf.losses.meanSquaredError(targets, outputs, undefined, mode), -1)
    case 'mae':
      return reduction === 'mean' ? tf.losses.absoluteDifference(targets, outputs) : tf.mean(tf.losses.absoluteDifference(targets, outputs, undefined, mode), -1)
  }
}
