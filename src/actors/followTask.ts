import type {SignedConnection} from '../protocol/connect.js'
import {isRevert} from '../protocol/errors.js'
import {getTask} from '../protocol/getTask.js'
import {expireTask, settleTask} from '../protocol/marketActions.js'
import type {Task, TaskStatus} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {sleep} from './sleep.js'

export type FollowEvent =
  | {type: 'status'; task: Task}
  | {type: 'settled'; taskId: bigint; gasUsed: bigint}
  | {type: 'expired'; taskId: bigint; from: TaskStatus; gasUsed: bigint}

export type FollowOptions = {
  connection: SignedConnection
  taskId: bigint
  pollMs?: number
  signal?: AbortSignal | undefined
  onEvent?: (event: FollowEvent) => void
}

/**
 * What a submitter does after paying: watch the task, settle it once the challenge window has closed, and
 * reclaim the escrow if any stage runs past its deadline. Resolves with the task in a final state.
 */
export async function followTask(options: FollowOptions): Promise<Task> {
  const {connection, taskId, signal} = options
  const emit = options.onEvent ?? (() => {})
  let lastStatus: TaskStatus | undefined
  for (;;) {
    const task = await getTask(connection, taskId)
    if (task.status !== lastStatus) {
      lastStatus = task.status
      emit({type: 'status', task})
    }
    if (task.status === 'Settled' || task.status === 'Expired' || signal?.aborted) return task
    const {timestamp} = await chainTime(connection)
    if (timestamp > task.deadline) {
      try {
        if (task.status === 'Verified') {
          const transaction = await settleTask(connection, taskId)
          emit({type: 'settled', taskId, gasUsed: transaction.gasUsed})
        } else {
          const transaction = await expireTask(connection, taskId)
          emit({type: 'expired', taskId, from: task.status, gasUsed: transaction.gasUsed})
        }
        continue
      } catch (error) {
        // Another actor moved the task on first, or the deadline was extended by a transition we have not seen.
        if (!isRevert(error, 'InvalidStatus', 'NotExpirable', 'ChallengeWindowOpen', 'DeadlineNotReached')) throw error
      }
    }
    await sleep(options.pollMs ?? 500, signal)
  }
}
