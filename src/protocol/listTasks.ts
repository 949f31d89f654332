import type {Hex} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {isRevert, toProtocolError} from './errors.js'
import {getTask} from './getTask.js'
import {readTaskStates, taskStateReader} from './taskState.js'
import type {Task, TaskStatus} from './types.js'

export type ListTasksOptions = {status?: readonly TaskStatus[] | undefined}

/**
 * Every task on the market, oldest first (ids start at 1), optionally filtered by status. The task count and every
 * task's state are read together (one head, one scan of the new TaskState events for all tasks), and each state
 * is decoded by the market's view, which a state already decoded does not call again (decodeTaskState): a role
 * loop's pass over an unchanged market costs the head, the count and the scan.
 */
export async function listTasks(connection: Connection, options: ListTasksOptions = {}): Promise<Task[]> {
  const [count, states] = await Promise.all([
    connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'taskCount'}).catch((error: unknown) => {
      throw toProtocolError('taskCount', error)
    }),
    readTaskStates(taskStateReader(connection)).catch((error: unknown) => {
      throw toProtocolError('getTask', error)
    }),
  ])
  const ids = Array.from({length: Number(count)}, (_, index) => BigInt(index + 1))
  const tasks = await Promise.all(ids.map((id) => getTaskAt(connection, id, states.stateOf(id))))
  return options.status ? tasks.filter((task) => options.status!.includes(task.status)) : tasks
}

/**
 * Task `id` decoded from the state read with the count; read on its own (with the market's retries) when that
 * state is no longer its current one: a transaction landed between the two reads (StaleTask).
 */
async function getTaskAt(connection: Connection, id: bigint, state: readonly Hex[]): Promise<Task> {
  try {
    return await getTask(connection, {taskId: id, state})
  } catch (error) {
    if (!isRevert(error, 'StaleTask')) throw error
    return getTask(connection, {taskId: id})
  }
}
