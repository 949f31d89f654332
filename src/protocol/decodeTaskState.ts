import type {ContractFunctionReturnType, Hex} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'

export type DecodeTaskStateParameters = {taskId: bigint; state: readonly Hex[]}

export type DecodeTaskStateReturnType = ContractFunctionReturnType<typeof taskMarketAbi, 'view', 'getTask'>

/**
 * The last state decoded for each task, per public client and market. The market's `getTask(id, state)` is a function
 * of its arguments alone (`_open` checks the state against the stored hash, then `_unpack` and `_rewards` are pure),
 * so a state once decoded is decoded again the same way for as long as it is the task's current one. One entry a task,
 * as many as the market has tasks (what listTasks holds anyway): a task's older states are not read again.
 */
const decodedByClient = new WeakMap<object, Map<string, {state: string; task: DecodeTaskStateReturnType}>>()

/**
 * Task `taskId` as the market's `getTask` view decodes `state`, which must be the task's current state (the view
 * reverts StaleTask otherwise). A role loop reads every task once a block, and between two transactions a task's
 * state does not change: the state decoded last for the task costs no call.
 *
 * @throws what `readContract` throws (the caller turns it into a protocol error)
 */
export async function decodeTaskState(
  connection: Pick<Connection, 'publicClient' | 'contracts'>,
  {taskId, state}: DecodeTaskStateParameters,
): Promise<DecodeTaskStateReturnType> {
  const {publicClient, contracts} = connection
  let decoded = decodedByClient.get(publicClient)
  if (!decoded) decodedByClient.set(publicClient, (decoded = new Map()))
  const key = `${contracts.market}:${taskId}`
  const words = state.join('')
  const known = decoded.get(key)
  if (known?.state === words) return known.task
  const task = await publicClient.readContract({address: contracts.market, abi: taskMarketAbi, functionName: 'getTask', args: [taskId, state]})
  decoded.set(key, {state: words, task})
  return task
}
