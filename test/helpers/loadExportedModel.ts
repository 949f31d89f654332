import * as tf from '@tensorflow/tfjs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

/** tf.loadLayersModel from an exported model.json + weights.bin (file:// needs tfjs-node: read them and load from memory). */
export async function loadExportedModel(dir: string): Promise<tf.LayersModel> {
  const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as tf.io.ModelJSON
  const artifacts = await tf.io.getModelArtifactsForJSON(json, async (manifest) => {
    const specs = manifest.flatMap((group) => group.weights)
    const buffers = await Promise.all(manifest.flatMap((group) => group.paths).map((p) => readFile(join(dir, p))))
    const joined = Buffer.concat(buffers)
    return [specs, joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength)]
  })
  return tf.loadLayersModel(tf.io.fromMemory(artifacts))
}
