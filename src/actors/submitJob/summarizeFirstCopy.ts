import {type BackendChoice, runtimeIdString, selectBackend} from '../../ml/backend/index.js'
import type {SubmitJobResult, SubmittedTask} from './types.js'

/**
 * The result's top-level fields, for scripts (`jq .testAccuracy`): the first copy's delivered task (the last one
 * evaluated), else the first copy's last task, and the runtime the delivered model was evaluated on.
 */
export async function summarizeFirstCopy(result: SubmitJobResult, tasks: readonly SubmittedTask[], tasksPerCopy: number, backend: BackendChoice): Promise<void> {
  const first = tasks.filter((task) => task.copy === 0 && task.testAccuracy !== undefined).at(-1) ?? tasks[tasksPerCopy - 1]
  if (!first) return
  result.taskId = first.taskId
  result.status = first.status
  result.verdict = first.verdict
  if (first.testAccuracy !== undefined) {
    result.testAccuracy = first.testAccuracy
    result.testLoss = first.testLoss
    if (first.rawTestAccuracy !== undefined) result.rawTestAccuracy = first.rawTestAccuracy
    result.finalCheckpoint = first.finalCheckpoint
    result.evaluatedOn = runtimeIdString(await selectBackend(backend))
  }
}
