import type {JobSpec} from '../../ml/spec/index.js'
import type {SignedConnection} from '../../protocol/connect.js'
import {submitTask} from '../../protocol/submitTask.js'
import {adoptTasks} from '../adoptTasks.js'
import {submittedTask} from './submittedTask.js'
import type {SubmitJobOptions, SubmittedTask} from './types.js'

/**
 * Posts every copy of the job, each split task naming the one before it as its parent (docs/market.md,
 * section 4), or, given `taskIds` posted earlier (a stopped submitter, a resumed devnet), follows those and posts
 * nothing. `fromBlock` is where the new tasks' ledgers start; adopted ones start at their first submission.
 */
export async function postJobTasks(
  connection: SignedConnection,
  specs: readonly JobSpec[],
  copies: number,
  fromBlock: bigint,
  options: Pick<SubmitJobOptions, 'taskIds' | 'onSubmitted'>,
): Promise<{tasks: SubmittedTask[]; fromBlock: bigint}> {
  if (options.taskIds) {
    const adopted = await adoptTasks(connection, specs, copies, options.taskIds)
    for (const task of adopted.tasks) options.onSubmitted?.(task)
    return {tasks: [...adopted.tasks], fromBlock: adopted.fromBlock}
  }
  const tasks: SubmittedTask[] = []
  for (let copy = 0; copy < copies; copy++) {
    let parentId = 0n
    for (const [index, taskSpec] of specs.entries()) {
      const submitted = await submitTask(connection, {spec: taskSpec, parentId})
      const task = submittedTask(submitted, taskSpec, {copy, index, tasks: specs.length})
      tasks.push(task)
      options.onSubmitted?.(task)
      parentId = submitted.taskId
    }
  }
  return {tasks, fromBlock}
}
