import type {JobSpec} from '../../ml/spec/index.js'
import {taskStepRange} from '../../ml/train/index.js'
import type {SubmitTaskResult} from '../../protocol/submitTask.js'
import type {SubmittedTask} from './types.js'

/** A task as the job's result lists it, once it landed on chain; `place` says where it sits in the job. */
export function submittedTask(submitted: SubmitTaskResult, spec: JobSpec, place: Pick<SubmittedTask, 'copy' | 'index' | 'tasks' | 'shard'>): SubmittedTask {
  return {
    taskId: submitted.taskId.toString(),
    ...place,
    parentId: submitted.parentId.toString(),
    specHash: submitted.specHash,
    steps: taskStepRange(spec),
    workUnits: submitted.workUnits.toString(),
    escrow: submitted.escrow.toString(),
    transactionHash: submitted.transaction.hash,
    gasUsed: submitted.transaction.gasUsed.toString(),
  }
}
