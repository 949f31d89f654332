import * as tf from '@tensorflow/tfjs'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import type {Mnist} from '../../ml/data/loadMnist.js'
import {forward} from '../../ml/model/forward.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {featureCount} from '../mappingStages.js'

/**
 * How often a classifier trained on raw digits reads `samples` as their labels (argmax, active backend). On
 * an attacker's reconstructions it says how many digits the attack gives away, whatever their pixel error;
 * on mapped samples, whether a raw-trained model reads the mapped data as it is.
 */
export function recognisedRate({spec, checkpoint}: {spec: JobSpec; checkpoint: Checkpoint}, samples: Mnist): number {
  const params = checkpoint.weights.map((w) => tf.tensor(w.values, w.shape, 'float32'))
  let correct = 0
  try {
    for (let start = 0; start < samples.count; start += 500) {
      const n = Math.min(500, samples.count - start)
      const predicted = tf.tidy(() => {
        const x = tf.tensor(samples.images.subarray(start * featureCount, (start + n) * featureCount), [n, ...spec.model.inputShape], 'float32')
        return tf.argMax(forward(spec, params, x, {training: false}), 1).dataSync() as Int32Array
      })
      for (let i = 0; i < n; i++) if (predicted[i] === samples.labels[start + i]) correct++
    }
  } finally {
    for (const p of params) p.dispose()
  }
  return correct / samples.count
}
