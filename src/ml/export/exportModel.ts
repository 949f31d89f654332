import * as tf from '@tensorflow/tfjs'
import {mkdir, rename, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {selectBackend} from '../backend/selectBackend.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {buildModel} from '../model/buildModel.js'
import {modelWeights} from '../model/initialWeights.js'
import type {JobSpec} from '../spec/schema.js'
import {ModelExportError} from './errors.js'
import {CheckpointMismatchError} from '../train/errors.js'

/** Frozen layers put before the job's own, with their weights (a private job's mapping, docs/privacy.md). */
export type InputLayers = {layers: tf.layers.Layer[]; weights: tf.Tensor[]}

/**
 * The job's model as a tfjs-layers model holding a checkpoint's weights, behind `inputLayers` when given.
 * The caller disposes it.
 */
export function checkpointModel(spec: JobSpec, checkpoint: Uint8Array, inputLayers?: InputLayers): tf.Sequential {
  const cp = decodeCheckpoint(checkpoint)
  const expected = modelWeights(spec.model)
  if (cp.weights.length !== expected.length || cp.weights.some((w, i) => w.name !== expected[i]?.name || w.shape.join(',') !== expected[i]?.shape.join(',')))
    throw new CheckpointMismatchError(`checkpoint: expected the weights of job ${spec.name}, got ${cp.weights.map((w) => w.name).join(', ')}`)
  const model = buildModel(spec, inputLayers?.layers)
  const tensors = cp.weights.map((w) => tf.tensor(w.values, w.shape, 'float32'))
  setWeightsInLayerOrder(model, [...(inputLayers?.weights ?? []), ...tensors])
  for (const t of tensors) t.dispose()
  return model
}

/**
 * Sets weights layer by layer, in the order the layers come. `model.setWeights` would expect the trainable
 * weights first, and frozen input layers (trainable: false) would then take the job's weights.
 */
export function setWeightsInLayerOrder(model: tf.LayersModel, weights: readonly tf.Tensor[]): void {
  let next = 0
  for (const layer of model.layers) {
    const count = layer.weights.length
    if (count === 0) continue
    layer.setWeights(weights.slice(next, next + count))
    next += count
  }
  if (next !== weights.length) throw new CheckpointMismatchError(`model ${model.name}: expected ${next} weight tensors, got ${weights.length}`)
}

export type ExportResult = {
  /** Absolute or `outDir`-relative paths written: model.json then weights.bin. */
  files: string[]
}

/**
 * Writes a checkpoint's weights as a tfjs layers model: `model.json` (format `layers-model`, with a
 * weights manifest pointing at `weights.bin`) and `weights.bin` (float32 little-endian, tfjs's weight
 * order). Loadable with `tf.loadLayersModel` (e.g. `file://<outDir>/model.json` with tfjs-node, or an
 * http server) and by Keras converters. Files are written to a temporary name and renamed into place.
 */
export async function exportModel({spec, checkpoint, outDir, inputLayers}: {spec: JobSpec; checkpoint: Uint8Array; outDir: string; inputLayers?: InputLayers}): Promise<ExportResult> {
  if (!tf.getBackend()) await selectBackend('wasm')
  const model = checkpointModel(spec, checkpoint, inputLayers)
  try {
    let artifacts: tf.io.ModelArtifacts | undefined
    await model.save(
      tf.io.withSaveHandler(async (a) => {
        artifacts = a
        return {modelArtifactsInfo: {dateSaved: new Date(0), modelTopologyType: 'JSON'}}
      }),
    )
    if (!artifacts?.weightSpecs || !artifacts.weightData) throw new ModelExportError('tfjs produced no weights to export')
    const weightData = artifacts.weightData
    const weights = new Uint8Array(tf.io.CompositeArrayBuffer.join(weightData))
    const modelJson = {
      format: 'layers-model',
      generatedBy: `TensorFlow.js tfjs-layers v${tf.version_layers}`,
      convertedBy: `gensyn (job ${spec.name}, step ${decodeCheckpoint(checkpoint).step}${inputLayers ? ', behind its privacy mapping' : ''})`,
      modelTopology: artifacts.modelTopology,
      weightsManifest: [{paths: ['weights.bin'], weights: artifacts.weightSpecs}],
    }
    await mkdir(outDir, {recursive: true})
    const files = [join(outDir, 'model.json'), join(outDir, 'weights.bin')]
    const contents = [`${JSON.stringify(modelJson, null, 2)}\n`, weights]
    for (const [i, file] of files.entries()) {
      const tmp = `${file}.tmp-${process.pid}`
      await writeFile(tmp, contents[i] as string | Uint8Array)
      await rename(tmp, file)
    }
    return {files}
  } finally {
    model.dispose()
  }
}
