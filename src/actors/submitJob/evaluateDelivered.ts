import type {Hex} from 'viem'

import type {BackendChoice} from '../../ml/backend/index.js'
import {evaluateCheckpoint} from '../../ml/evaluate/index.js'
import type {JobSpec} from '../../ml/spec/index.js'
import type {ProofManifest} from '../../pol/index.js'
import {evaluateWrappedModel, type MappingKey} from '../../privacy/wrapModel.js'
import type {SignedConnection} from '../../protocol/connect.js'
import type {Task} from '../../protocol/types.js'
import type {SubmittedTask} from './types.js'

/**
 * Each copy's model is the final checkpoint of its last settled task: the job's last task, or a split task
 * that stopped early (the tasks after it expire). Copies of one job train to the same checkpoint, so each
 * distinct checkpoint is evaluated once.
 */
export async function evaluateDelivered(
  connection: SignedConnection,
  backend: BackendChoice,
  specs: readonly JobSpec[],
  tasks: SubmittedTask[],
  finals: readonly Task[],
  mappingKey: MappingKey | undefined,
): Promise<void> {
  const evaluationOf = new Map<Hex, {testAccuracy: number; testLoss: number}>()
  const rawAccuracyOf = new Map<Hex, number>()
  const copies = new Set(tasks.map((task) => task.copy))
  for (const copy of copies) {
    const chain = finals.flatMap((final, position) => (tasks[position]!.copy === copy ? [{final, task: tasks[position]!}] : []))
    const delivered = chain.filter(({final}) => final.status === 'Settled' && final.accepted).at(-1)
    if (!delivered) continue
    const {final, task} = delivered
    if (task.index !== specs.length - 1 && final.totalSteps === final.maxSteps) continue // a later task never ran
    const manifest = await connection.store.getJson<ProofManifest>(final.manifestHash)
    const last = manifest.checkpoints.at(-1)
    if (!last) continue
    let evaluation = evaluationOf.get(last.hash)
    if (evaluation === undefined) {
      evaluation = await evaluateCheckpoint({spec: specs[task.index]!, checkpoint: await connection.store.get(last.hash), backend})
      evaluationOf.set(last.hash, evaluation)
    }
    task.testAccuracy = evaluation.testAccuracy
    task.testLoss = evaluation.testLoss
    task.finalCheckpoint = last.hash
    if (mappingKey) {
      let raw = rawAccuracyOf.get(last.hash)
      if (raw === undefined) {
        const checkpoint = await connection.store.get(last.hash)
        raw = (await evaluateWrappedModel({spec: specs[task.index]!, checkpoint, key: mappingKey, backend})).testAccuracy
        rawAccuracyOf.set(last.hash, raw)
      }
      task.rawTestAccuracy = raw
    }
  }
}
