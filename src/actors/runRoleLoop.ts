import type {BackendName} from '../ml/backend/index.js'
import type {SignedConnection} from '../protocol/connect.js'
import {isRevert} from '../protocol/errors.js'
import {listTasks} from '../protocol/listTasks.js'
import {settleTask} from '../protocol/marketActions.js'
import type {Task} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {sleep} from './sleep.js'

/** What every role loop (solver, verifier) is given. */
export type RoleLoopOptions<Event> = {
  connection: SignedConnection
  backend: BackendName
  /** Keep taking tasks until aborted; otherwise finish one task (or `maxTasks`) and return. */
  loop: boolean
  maxTasks?: number | undefined
  pollMs?: number
  signal?: AbortSignal | undefined
  onEvent?: (event: Event) => void
}

export type ChainNow = {timestamp: bigint; number: bigint}

export type RoleLoopParameters<Result> = {
  options: RoleLoopOptions<never>
  /** This role's verified tasks, which it settles once their challenge window has closed. */
  isOwnVerified: (task: Task) => boolean
  /** A task this role already holds (to resume), else a new one to take, if it may take more. */
  pick: (tasks: Task[], now: ChainNow, mayTakeMore: boolean) => {task: Task; held: boolean} | undefined
  work: (task: Task, held: boolean) => Promise<Result | undefined>
  onSettled: (taskId: bigint, gasUsed: bigint) => void
}

/**
 * The loop both working roles share: read the market, settle what is due, take or resume one task, and
 * otherwise wait a poll interval, until aborted or done.
 */
export async function runRoleLoop<Result>(parameters: RoleLoopParameters<Result>): Promise<Result[]> {
  const {options} = parameters
  const maxTasks = options.maxTasks ?? (options.loop ? Number.POSITIVE_INFINITY : 1)
  const done: Result[] = []
  while (!options.signal?.aborted) {
    const tasks = await listTasks(options.connection)
    const now = await chainTime(options.connection)
    for (const task of tasks.filter((candidate) => parameters.isOwnVerified(candidate) && now.timestamp > candidate.deadline)) {
      try {
        const transaction = await settleTask(options.connection, task.id)
        parameters.onSettled(task.id, transaction.gasUsed)
      } catch (error) {
        if (!isRevert(error, 'InvalidStatus')) throw error // someone else settled it first
      }
    }
    const next = parameters.pick(tasks, now, done.length < maxTasks)
    if (next) {
      const result = await parameters.work(next.task, next.held)
      if (result !== undefined) done.push(result)
    } else {
      await sleep(options.pollMs ?? 500, options.signal)
    }
    if (!options.loop && done.length >= maxTasks) break
  }
  return done
}
