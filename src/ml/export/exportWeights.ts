import {mkdir, rename, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

import type {Hex} from 'viem'

import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {datasetHash} from '../data/datasetHash.js'
import {publishedDataset} from '../data/publishedDataset.js'
import {evaluateCheckpoint} from '../evaluate/evaluateCheckpoint.js'
import {canonicalSpecBytes, type JobSpec, specHash} from '../spec/index.js'
import {encodeSafetensors} from './safetensors.js'

/** What a delivered model is: which job, on which data, proven by which proof, and how good it is. */
export type ModelCard = {
  format: 'gensyn-model-card/v1'
  name: string
  specHash: Hex
  spec: JobSpec
  /** The training data's hash (docs/job-spec.md): what the proof says the model was trained on. */
  dataHash: Hex
  /** The proof's Merkle root over its checkpoint hashes, as committed on chain. */
  proofRoot: Hex
  taskId?: string
  checkpoint: Hex
  step: number
  /** Measured on the job's test split now (wasm); a regression has no accuracy (null). */
  metrics: {testAccuracy: number | null; testLoss: number; testSamples: number}
  /** How raw inputs map to the model's (and a regression's outputs back): x' = (x / scale - shift) / divide. */
  data?: {task: string; featureShape: number[]; classNames?: string[]; features: unknown; labels?: unknown}
  /** The weights in model.safetensors: names as the checkpoint's (`<layer>/<type>/<kernel|bias>`), dense kernels [in, out]. */
  tensors: {name: string; shape: number[]}[]
}

async function writeAtomically(file: string, contents: string | Uint8Array): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`
  await writeFile(tmp, contents)
  await rename(tmp, file)
}

/**
 * Writes a checkpoint's weights as `model.safetensors` (F32, the checkpoint's names and shapes; metadata: spec
 * hash, data hash, proof root) and `model-card.json` ({@link ModelCard}), for loading outside gensyn
 * (docs/job-spec.md, "Getting the model out": PyTorch in a few lines).
 */
export async function exportWeights(options: {spec: JobSpec; checkpoint: Uint8Array; checkpointHash: Hex; proofRoot: Hex; taskId?: string; outDir: string}): Promise<{files: string[]; card: ModelCard}> {
  const {spec, checkpoint, outDir} = options
  const cp = decodeCheckpoint(checkpoint)
  const dataHash = datasetHash(spec)
  const metadata = {format: 'pt', gensyn_spec_hash: specHash(spec), gensyn_data_hash: dataHash, gensyn_proof_root: options.proofRoot}
  const evaluation = await evaluateCheckpoint({spec, checkpoint: cp})
  const dataset = 'source' in spec.dataset ? publishedDataset(spec.dataset.data as Hex) : undefined
  const card: ModelCard = {
    format: 'gensyn-model-card/v1',
    name: spec.name,
    specHash: specHash(spec),
    spec: JSON.parse(new TextDecoder().decode(canonicalSpecBytes(spec))) as JobSpec,
    dataHash,
    proofRoot: options.proofRoot,
    ...(options.taskId === undefined ? {} : {taskId: options.taskId}),
    checkpoint: options.checkpointHash,
    step: cp.step,
    metrics: {testAccuracy: Number.isNaN(evaluation.testAccuracy) ? null : evaluation.testAccuracy, testLoss: evaluation.testLoss, testSamples: evaluation.count},
    ...(dataset
      ? {data: {task: dataset.task, featureShape: dataset.featureShape, ...(dataset.classNames ? {classNames: dataset.classNames} : {}), features: dataset.features, ...(dataset.labels ? {labels: dataset.labels} : {})}}
      : {}),
    tensors: cp.weights.map((w) => ({name: w.name, shape: w.shape})),
  }
  await mkdir(outDir, {recursive: true})
  const files = [join(outDir, 'model.safetensors'), join(outDir, 'model-card.json')]
  await writeAtomically(files[0]!, encodeSafetensors(cp.weights, metadata))
  await writeAtomically(files[1]!, `${JSON.stringify(card, null, 2)}\n`)
  return {files, card}
}
