import type {SignedConnection} from '../protocol/connect.js'
import {isRevert} from '../protocol/errors.js'
import {getTask} from '../protocol/getTask.js'
import {expireTask} from '../protocol/marketActions.js'
import type {Task, TaskStatus} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {pumpSettle, type SettleReport} from './runRoleLoop.js'
import {waitForNewHead} from './waitForNewHead.js'

export type FollowEvent =
  | {type: 'status'; task: Task}
  | ({type: 'settle'} & SettleReport)
  /** An expire call: `from` Claimed is a solver's timeout (the task returns to the pool), any other stage ends it. */
  | {type: 'expired'; taskId: bigint; from: TaskStatus; gasUsed: bigint}

export type FollowOptions = {
  connection: SignedConnection
  taskId: bigint
  pollMs?: number
  signal?: AbortSignal | undefined
  onEvent?: (event: FollowEvent) => void
}

export type FollowTasksOptions = Omit<FollowOptions, 'taskId'> & {taskIds: readonly bigint[]}

/**
 * What a submitter does after paying: watch the task, pump settle once its reveal window has passed (a
 * dispute, a reopening or a re-verification after a forced error may follow, and the task is followed through
 * all of them), and reclaim the escrow if any stage runs past its deadline. Resolves with the task Settled or
 * Expired (or as it is when aborted).
 */
export async function followTask(options: FollowOptions): Promise<Task> {
  const [task] = await followTasks({...options, taskIds: [options.taskId]})
  return task!
}

/**
 * Follows several tasks (a split job's, or copies of a job) in one loop, so that the submitter's settle and
 * expire transactions are sent one at a time (concurrent sends from one account would race for a nonce).
 * A split task whose parent expired or stopped early can never be claimed: it is expired at once, refunding
 * its escrow (docs/market.md, section 4). Resolves with every task Settled or Expired (or as they are when aborted).
 */
export async function followTasks(options: FollowTasksOptions): Promise<Task[]> {
  const {connection, signal} = options
  const emit = options.onEvent ?? (() => {})
  type Seen = {status: TaskStatus; attempts: number; commitBlock: bigint; verdictBlock: bigint; claimBlock: bigint}
  const last = new Map<bigint, Seen>()
  const current = new Map<bigint, Task>()
  for (;;) {
    for (const taskId of options.taskIds) {
      const known = current.get(taskId)
      if (known && (known.status === 'Settled' || known.status === 'Expired')) continue
      const task = await getTask(connection, {taskId})
      current.set(taskId, task)
      // A reopened or re-verified task passes through a status it had before: report every new attempt too.
      const seen = last.get(taskId)
      if (
        !seen ||
        seen.status !== task.status ||
        seen.attempts !== task.attempts ||
        seen.commitBlock !== task.commitBlock ||
        seen.verdictBlock !== task.verdictBlock ||
        seen.claimBlock !== task.claimBlock
      ) {
        last.set(taskId, {status: task.status, attempts: task.attempts, commitBlock: task.commitBlock, verdictBlock: task.verdictBlock, claimBlock: task.claimBlock})
        emit({type: 'status', task})
      }
    }
    const tasks = options.taskIds.map((taskId) => current.get(taskId)!)
    if (signal?.aborted || tasks.every((task) => task.status === 'Settled' || task.status === 'Expired')) return tasks
    const now = await chainTime(connection)
    for (const task of tasks) {
      if (task.status === 'Settled' || task.status === 'Expired') continue
      if (task.status === 'Verified') {
        await pumpSettle(connection, [task], now, (report) => emit({type: 'settle', ...report}))
      } else if (now.timestamp > task.deadline || (task.status === 'Submitted' && (await orphaned(task)))) {
        try {
          const transaction = await expireTask(connection, {taskId: task.id})
          emit({type: 'expired', taskId: task.id, from: task.status, gasUsed: transaction.gasUsed})
        } catch (error) {
          // Another actor moved the task on first, or the deadline was extended by a transition we have not seen.
          if (!isRevert(error, 'InvalidStatus', 'NotExpirable', 'DeadlineNotReached')) throw error
        }
      }
    }
    await waitForNewHead(connection, now.number, options)
  }

  /** A split task whose parent expired, or settled having stopped early, will never start. */
  async function orphaned(task: Task): Promise<boolean> {
    if (task.parentId === 0n) return false
    const parent = current.get(task.parentId) ?? (await getTask(connection, {taskId: task.parentId}))
    return parent.status === 'Expired' || (parent.status === 'Settled' && parent.totalSteps < parent.maxSteps)
  }
}
