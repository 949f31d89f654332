import * as tf from '@tensorflow/tfjs'
import type {Mnist} from '../ml/data/loadMnist.js'
import {setWeightsInLayerOrder} from '../ml/export/exportModel.js'
import {featureCount, type MappingStage} from './mappingStages.js'

/**
 * A mapping as standard tfjs layers (flatten, dense stages, reshape back to the model's input shape), frozen.
 * The same layers map the published data set and sit in front of the wrapped model, so both compute the
 * mapping with the same kernels. Call `setMappingWeights` on a model holding them.
 */
export function mappingLayers(stages: readonly MappingStage[], inputShape: readonly number[]): tf.layers.Layer[] {
  const image = inputShape.length > 1
  const layers: tf.layers.Layer[] = image ? [tf.layers.flatten({name: 'privacy_flatten', inputShape: [...inputShape]})] : []
  for (const [i, stage] of stages.entries())
    layers.push(
      tf.layers.dense({
        ...(i === 0 && !image ? {inputShape: [featureCount]} : {}),
        name: `privacy_map${i}`,
        units: featureCount,
        activation: stage.activation,
        useBias: stage.bias !== undefined,
        trainable: false,
        kernelInitializer: 'zeros',
      }),
    )
  if (image) layers.push(tf.layers.reshape({name: 'privacy_reshape', targetShape: [...inputShape]}))
  return layers
}

/** The mapping's weights in the order the layers of {@link mappingLayers} hold them. */
export function mappingWeights(stages: readonly MappingStage[]): tf.Tensor[] {
  return stages.flatMap((stage) => [
    tf.tensor2d(stage.kernel, [featureCount, featureCount], 'float32'),
    ...(stage.bias ? [tf.tensor1d(stage.bias, 'float32')] : []),
  ])
}

/** Applies a mapping to samples on the active backend, in batches, with the layers the wrapped model uses. */
export function applyMapping(stages: readonly MappingStage[], samples: Mnist, batch = 1000): Mnist {
  const model = tf.sequential({name: 'privacy_mapping', layers: mappingLayers(stages, [featureCount])})
  try {
    const weights = mappingWeights(stages)
    setWeightsInLayerOrder(model, weights)
    for (const w of weights) w.dispose()
    const images = new Float32Array(samples.count * featureCount)
    for (let start = 0; start < samples.count; start += batch) {
      const n = Math.min(batch, samples.count - start)
      const mapped = tf.tidy(() => {
        const x = tf.tensor2d(samples.images.subarray(start * featureCount, (start + n) * featureCount), [n, featureCount], 'float32')
        return (model.predict(x) as tf.Tensor).dataSync() as Float32Array
      })
      images.set(mapped, start * featureCount)
    }
    return {images, labels: samples.labels, count: samples.count}
  } finally {
    model.dispose()
  }
}
