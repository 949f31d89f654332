import type {SignedConnection} from '../protocol/connect.js'
import {isRevert} from '../protocol/errors.js'
import {getTask} from '../protocol/getTask.js'
import {expireTask} from '../protocol/marketActions.js'
import type {Task, TaskStatus} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {pumpSettle, type SettleReport} from './runRoleLoop.js'
import {sleep} from './sleep.js'

export type FollowEvent =
  | {type: 'status'; task: Task}
  | ({type: 'settle'} & SettleReport)
  | {type: 'expired'; taskId: bigint; from: TaskStatus; gasUsed: bigint}

export type FollowOptions = {
  connection: SignedConnection
  taskId: bigint
  pollMs?: number
  signal?: AbortSignal | undefined
  onEvent?: (event: FollowEvent) => void
}

/**
 * What a submitter does after paying: watch the task, pump settle once its reveal window has passed (a
 * dispute, a reopening or a re-verification after a forced error may follow, and the task is followed through
 * all of them), and reclaim the escrow if any stage runs past its deadline. Resolves with the task Settled or
 * Expired (or as it is when aborted).
 */
export async function followTask(options: FollowOptions): Promise<Task> {
  const {connection, taskId, signal} = options
  const emit = options.onEvent ?? (() => {})
  let last: {status: TaskStatus; attempts: number; commitBlock: bigint; verdictBlock: bigint} | undefined
  for (;;) {
    const task = await getTask(connection, taskId)
    // A reopened or re-verified task passes through a status it had before: report every new attempt too.
    if (!last || last.status !== task.status || last.attempts !== task.attempts || last.commitBlock !== task.commitBlock || last.verdictBlock !== task.verdictBlock) {
      last = {status: task.status, attempts: task.attempts, commitBlock: task.commitBlock, verdictBlock: task.verdictBlock}
      emit({type: 'status', task})
    }
    if (task.status === 'Settled' || task.status === 'Expired' || signal?.aborted) return task
    const now = await chainTime(connection)
    if (task.status === 'Verified') {
      await pumpSettle(connection, [task], now, (report) => emit({type: 'settle', ...report}))
    } else if (now.timestamp > task.deadline) {
      try {
        const transaction = await expireTask(connection, taskId)
        emit({type: 'expired', taskId, from: task.status, gasUsed: transaction.gasUsed})
        continue
      } catch (error) {
        // Another actor moved the task on first, or the deadline was extended by a transition we have not seen.
        if (!isRevert(error, 'InvalidStatus', 'NotExpirable', 'DeadlineNotReached')) throw error
      }
    }
    await sleep(options.pollMs ?? 500, signal)
  }
}
