import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'
import {getTask} from './getTask.js'
import type {Task, TaskStatus} from './types.js'

export type ListTasksOptions = {status?: readonly TaskStatus[] | undefined}

/** Every task on the market, oldest first (ids start at 1), optionally filtered by status. */
export async function listTasks(connection: Connection, options: ListTasksOptions = {}): Promise<Task[]> {
  let count: bigint
  try {
    count = await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'taskCount'})
  } catch (error) {
    throw toProtocolError('taskCount', error)
  }
  const ids = Array.from({length: Number(count)}, (_, index) => BigInt(index + 1))
  const tasks = await Promise.all(ids.map((id) => getTask(connection, {taskId: id})))
  return options.status ? tasks.filter((task) => options.status!.includes(task.status)) : tasks
}
