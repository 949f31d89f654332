import type {Hex} from 'viem'

import {BaseError} from '../errors/base.js'
import {exportModel} from '../ml/export/index.js'
import type {ProofManifest} from '../pol/index.js'
import {loadTaskSpec} from './loadTaskSpec.js'
import type {Connection} from './connect.js'
import {getTask} from './getTask.js'

export type FetchModelResult = {taskId: string; checkpoint: Hex; step: number; outDir: string; files: string[]}

/** Exports the final checkpoint of a task as a tfjs layers model (model.json + weights.bin). */
export async function fetchModel(options: {connection: Connection; taskId: bigint; outDir: string; force?: boolean}): Promise<FetchModelResult> {
  const {connection, taskId} = options
  const task = await getTask(connection, taskId)
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
  const {files} = await exportModel({spec, checkpoint: await connection.store.get(last.hash), outDir: options.outDir})
  return {taskId: taskId.toString(), checkpoint: last.hash, step: last.step, outDir: options.outDir, files}
}
