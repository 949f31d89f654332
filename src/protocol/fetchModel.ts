import type {Hex} from 'viem'

import {BaseError} from '../errors/base.js'
import {exportModel, exportWeights} from '../ml/export/index.js'
import {hasLayersExport} from '../ml/model/buildModel.js'
import type {ProofManifest} from '../pol/index.js'
import {PrivacyError} from '../privacy/errors.js'
import type {PrivacyKey} from '../privacy/keyFile.js'
import {exportWrappedModel} from '../privacy/wrapModel.js'
import {loadTaskSpec} from './loadTaskSpec.js'
import type {Connection} from './connect.js'
import {getTask} from './getTask.js'

export type FetchModelResult = {
  taskId: string
  checkpoint: Hex
  step: number
  outDir: string
  files: string[]
  /** A private task: `raw` when the model was wrapped with its mapping (--key), `mapped` when it takes mapped inputs. */
  inputs?: 'raw' | 'mapped'
}

/**
 * Exports the final checkpoint of a task as a tfjs layers model (model.json + weights.bin), and as
 * model.safetensors with model-card.json (spec, data hash, proof root, test metrics). With a private
 * task's key, the mapping goes in front as frozen layers, so the model takes raw inputs (docs/privacy.md).
 */
export async function fetchModel(options: {connection: Connection; taskId: bigint; outDir: string; force?: boolean; key?: PrivacyKey | undefined}): Promise<FetchModelResult> {
  const {connection, taskId} = options
  const task = await getTask(connection, {taskId})
  const delivered = task.status === 'Settled' && task.accepted
  if (!delivered && !(options.force && task.checkpointCount > 0)) {
    throw new BaseError(`task ${taskId}: no accepted model yet (status ${task.status}${task.status === 'Settled' ? ', rejected' : ''})`, {
      details: 'A model is delivered once its task is settled with an accepted verdict; --force exports a committed but unverified one.',
    })
  }
  const manifest = await connection.store.getJson<ProofManifest>(task.manifestHash)
  const last = manifest.checkpoints.at(-1)
  if (!last) throw new BaseError(`task ${taskId}: its proof manifest lists no checkpoints`)
  const spec = await loadTaskSpec(connection, task)
  const checkpoint = await connection.store.get(last.hash)
  const {key} = options
  const base = {taskId: taskId.toString(), checkpoint: last.hash, step: last.step, outDir: options.outDir}
  if (key) {
    if (!spec.privacy) throw new PrivacyError(`task ${taskId}: not a private task, expected no --key`)
    if (key.data !== spec.privacy.data || !key.taskIds.includes(taskId.toString()))
      throw new PrivacyError(`task ${taskId}: the key file is for tasks ${key.taskIds.join(', ')} (data ${key.data}), not this task (data ${spec.privacy.data})`)
    const {files} = await exportWrappedModel({spec, checkpoint, outDir: options.outDir, key: {mapping: key.mapping, key: key.key as Hex}})
    return {...base, files, inputs: 'raw'}
  }
  // a transformer has no tfjs layers form: its weights go out as safetensors only
  const {files} = hasLayersExport(spec) ? await exportModel({spec, checkpoint, outDir: options.outDir}) : {files: []}
  const weights = await exportWeights({spec, checkpoint, checkpointHash: last.hash, proofRoot: manifest.merkleRoot, taskId: taskId.toString(), outDir: options.outDir})
  return {...base, files: [...files, ...weights.files], ...(spec.privacy ? {inputs: 'mapped' as const} : {})}
}
