import * as tf from '@tensorflow/tfjs'
import type {Hex} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import type {BackendChoice} from '../ml/backend/runtimeId.js'
import {loadMnist} from '../ml/data/loadMnist.js'
import {checkpointModel, exportModel, type ExportResult, type InputLayers} from '../ml/export/exportModel.js'
import type {JobSpec, PrivacyMapping} from '../ml/spec/schema.js'
import {mappingLayers, mappingWeights} from './mappingLayers.js'
import {mappingStages} from './mappingStages.js'

export type MappingKey = {mapping: PrivacyMapping; key: Hex}

/** The mapping as the first, frozen layers of a model that takes the job's raw inputs. */
export function mappingInputLayers(spec: Pick<JobSpec, 'model'>, {mapping, key}: MappingKey): InputLayers {
  const stages = mappingStages(mapping, key)
  return {layers: mappingLayers(stages, spec.model.inputShape), weights: mappingWeights(stages)}
}

function withInputLayers<T>(spec: JobSpec, key: MappingKey, use: (layers: InputLayers) => Promise<T>): Promise<T> {
  const layers = mappingInputLayers(spec, key)
  return use(layers).finally(() => {
    for (const w of layers.weights) w.dispose()
  })
}

/**
 * Writes a private task's model with its mapping as the first layers (docs/privacy.md): model.json +
 * weights.bin that take raw inputs. Without the key the trained model alone only works on mapped inputs.
 */
export async function exportWrappedModel(options: {spec: JobSpec; checkpoint: Uint8Array; outDir: string; key: MappingKey}): Promise<ExportResult> {
  if (!tf.getBackend()) await selectBackend('wasm')
  return withInputLayers(options.spec, options.key, (inputLayers) => exportModel({...options, inputLayers}))
}

/**
 * The wrapped model's accuracy on the first `dataset.testLimit` raw MNIST test samples: what the submitter's
 * model does on the data it owns, through the mapping and the trained layers.
 */
export async function evaluateWrappedModel(options: {spec: JobSpec; checkpoint: Uint8Array; key: MappingKey; backend?: BackendChoice | undefined}): Promise<{testAccuracy: number; count: number}> {
  await selectBackend(options.backend ?? 'wasm')
  const {spec} = options
  const test = loadMnist({split: 'test', limit: spec.dataset.testLimit})
  return withInputLayers(spec, options.key, async (inputLayers) => {
    const model = checkpointModel(spec, options.checkpoint, inputLayers)
    try {
      let correct = 0
      const batch = 500
      for (let start = 0; start < test.count; start += batch) {
        const n = Math.min(batch, test.count - start)
        const predicted = tf.tidy(() => {
          const x = tf.tensor(test.images.subarray(start * 784, (start + n) * 784), [n, ...spec.model.inputShape], 'float32')
          return tf.argMax(model.predict(x) as tf.Tensor, 1).dataSync() as Int32Array
        })
        for (let i = 0; i < n; i++) if (predicted[i] === test.labels[start + i]) correct++
      }
      return {testAccuracy: correct / test.count, count: test.count}
    } finally {
      model.dispose()
    }
  })
}
