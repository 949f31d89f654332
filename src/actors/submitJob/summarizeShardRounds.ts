import {type BackendChoice, runtimeIdString, selectBackend} from '../../ml/backend/index.js'
import {evaluateCheckpoint} from '../../ml/evaluate/index.js'
import type {JobSpec} from '../../ml/spec/index.js'
import {settledWhole, verdictOf} from '../../protocol/types.js'
import type {ShardRoundsResult} from './runShardRounds.js'
import type {SubmitJobResult} from './types.js'

/**
 * A parallel split's top-level fields: the first task that did not deliver (else the last task) gives the status
 * and verdict; the delivered model is the last round's mean, evaluated here and credited to that round's tasks
 * (the report reads a job's accuracy from its last round's tasks).
 */
export async function summarizeShardRounds(result: SubmitJobResult, spec: JobSpec, rounds: ShardRoundsResult, backend: BackendChoice): Promise<void> {
  // the first task that did not deliver; findIndex's -1 (none) makes at() take the last
  const decisive = rounds.finals.at(rounds.finals.findIndex((task) => !settledWhole(task)))
  result.rounds = rounds.rounds
  result.paid = rounds.paid.toString()
  result.refunded = rounds.refunded.toString()
  if (decisive) {
    result.taskId = decisive.id.toString()
    result.status = decisive.status
    result.verdict = verdictOf(decisive)
  }
  const {delivered} = rounds
  if (!delivered) return
  const evaluation = await evaluateCheckpoint({spec, checkpoint: delivered.bytes, backend})
  result.testAccuracy = evaluation.testAccuracy
  result.testLoss = evaluation.testLoss
  result.finalCheckpoint = delivered.hash
  result.evaluatedOn = runtimeIdString(await selectBackend(backend))
  const lastRound = rounds.rounds.at(-1)?.round
  for (const task of rounds.tasks.filter((task) => task.index === lastRound)) Object.assign(task, {testAccuracy: evaluation.testAccuracy, testLoss: evaluation.testLoss, finalCheckpoint: delivered.hash})
}
