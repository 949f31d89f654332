import * as tf from '@tensorflow/tfjs'
import type {JobSpec} from '../spec/schema.js'
import {pair} from './analyzeModel.js'
import {analyzed, ModelSpecError} from './initialWeights.js'

/**
 * The job's model as a tfjs-layers sequential model (for export, `model.predict` and interop). Layer
 * names are fixed (`l<index>_<type>`, e.g. `l0_dense`) so the exported topology is deterministic.
 * Weights start at zero: apply {@link initialWeights} or a checkpoint with `model.setWeights`.
 * Training does not use this object: it runs the same layers as explicit ops (src/ml/model/forward.ts).
 * `inputLayers` go first (a private job's mapping, docs/privacy.md): the first of them carries the input shape.
 */
/** True when every layer has a tfjs-layers counterpart (the sequence layers do not). */
export function hasLayersExport(spec: Pick<JobSpec, 'model'>): boolean {
  return spec.model.layers.every((layer) => ['dense', 'conv2d', 'maxPooling2d', 'avgPooling2d', 'globalAveragePooling', 'flatten', 'dropout'].includes(layer.type) && !(layer.type === 'dense' && layer.activation === 'gelu'))
}

export function buildModel(spec: JobSpec, inputLayers: readonly tf.layers.Layer[] = []): tf.Sequential {
  analyzed(spec.model) // throws on an invalid model
  const model = tf.sequential({name: `gensyn_${spec.name.replace(/[^a-zA-Z0-9_]/g, '_')}`})
  for (const layer of inputLayers) model.add(layer)
  for (const [index, layer] of spec.model.layers.entries()) {
    const base = {name: `l${index}_${layer.type}`, ...(index === 0 && inputLayers.length === 0 ? {inputShape: spec.model.inputShape} : {})}
    switch (layer.type) {
      case 'dense':
        model.add(
          tf.layers.dense({...base, units: layer.units, activation: layer.activation, kernelInitializer: 'zeros', biasInitializer: 'zeros'}),
        )
        break
      case 'conv2d':
        model.add(
          tf.layers.conv2d({
            ...base,
            filters: layer.filters,
            kernelSize: pair(layer.kernelSize),
            strides: pair(layer.strides),
            padding: layer.padding,
            activation: layer.activation,
            dataFormat: 'channelsLast',
            kernelInitializer: 'zeros',
            biasInitializer: 'zeros',
          }),
        )
        break
      case 'maxPooling2d':
        model.add(
          tf.layers.maxPooling2d({
            ...base,
            poolSize: pair(layer.poolSize),
            strides: pair(layer.strides ?? layer.poolSize),
            padding: layer.padding,
            dataFormat: 'channelsLast',
          }),
        )
        break
      case 'avgPooling2d':
        model.add(tf.layers.averagePooling2d({...base, poolSize: pair(layer.poolSize), strides: pair(layer.strides ?? layer.poolSize), padding: layer.padding, dataFormat: 'channelsLast'}))
        break
      case 'globalAveragePooling':
        model.add(analyzed(spec.model).layers[index]!.inputShape.length === 3 ? tf.layers.globalAveragePooling2d({...base, dataFormat: 'channelsLast'}) : tf.layers.globalAveragePooling1d(base))
        break
      case 'flatten':
        model.add(tf.layers.flatten(base))
        break
      case 'dropout':
        model.add(tf.layers.dropout({...base, rate: layer.rate}))
        break
      default:
        // tfjs-layers has no multi-head attention or residual block for a sequential model: such a model goes
        // out as model.safetensors (gensyn models get), not as a tfjs layers model
        throw new ModelSpecError(`model.layers[${index}]: ${layer.type} has no tfjs layers export; use model.safetensors (gensyn models get writes it)`)
    }
  }
  return model
}
