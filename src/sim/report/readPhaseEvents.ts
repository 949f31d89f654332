import {taskMarketAbi} from '../../chain/generated/index.js'
import {getLogsPaged} from '../../chain/getLogsPaged.js'
import type {Connection} from '../../protocol/connect.js'

/** The market's events that move a task from one phase to the next. */
export const phaseEvents = ['TaskSubmitted', 'TaskClaimed', 'ProofCommitted', 'VerificationClaimed', 'VerdictPosted', 'TaskRejected', 'TaskReopened', 'TaskSettled', 'TaskExpired'] as const
export type PhaseEvent = (typeof phaseEvents)[number]

export type PhaseLog = {gasUsed: bigint; timestamp: bigint; args: Record<string, unknown>}
/** Each phase event of a task, oldest first (a reopened task repeats claim, commit and verification). */
export type TaskEvents = Map<PhaseEvent, PhaseLog[]>

/** Every task's phase events since `fromBlock`, with the gas of each transaction and the time of its block. */
export async function readPhaseEvents(connection: Connection, fromBlock: bigint): Promise<Map<bigint, TaskEvents>> {
  const byTask = new Map<bigint, TaskEvents>()
  const timestamps = new Map<bigint, bigint>()
  for (const eventName of phaseEvents) {
    const logs = await getLogsPaged(connection.publicClient, {fromBlock}, (range) => connection.publicClient.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName, ...range}))
    for (const log of logs) {
      const id = (log.args as {id?: bigint}).id
      if (id === undefined || log.transactionHash === null || log.blockNumber === null) continue
      const receipt = await connection.publicClient.getTransactionReceipt({hash: log.transactionHash})
      if (!timestamps.has(log.blockNumber)) timestamps.set(log.blockNumber, (await connection.publicClient.getBlock({blockNumber: log.blockNumber})).timestamp)
      const events: TaskEvents = byTask.get(id) ?? new Map()
      const entry = {gasUsed: receipt.gasUsed, timestamp: timestamps.get(log.blockNumber)!, args: log.args as Record<string, unknown>}
      events.set(eventName, [...(events.get(eventName) ?? []), entry])
      byTask.set(id, events)
    }
  }
  return byTask
}
