import type {Address, Hex} from 'viem'

import {taskMarketAbi} from '../../chain/generated/index.js'
import type {Connection} from '../../protocol/connect.js'
import {getLogsPaged} from '../../chain/getLogsPaged.js'

/** One TaskMarket event, decoded, with its place in the chain and its block's time. */
export type MarketLogEntry = {
  eventName: string
  args: Record<string, unknown>
  block: bigint
  logIndex: number
  transactionHash: Hex
  /** Chain-clock seconds since the origin block. */
  seconds: number
}

export type Reader = Pick<Connection, 'publicClient' | 'contracts'>

/** Reads a block's timestamp once per block (many events share one). */
export function blockClock(connection: Reader, originBlock: bigint): (block: bigint) => Promise<number> {
  const cache = new Map<bigint, Promise<bigint>>()
  const timestampOf = (block: bigint) => {
    let timestamp = cache.get(block)
    if (timestamp === undefined) {
      timestamp = connection.publicClient.getBlock({blockNumber: block}).then((value) => value.timestamp)
      cache.set(block, timestamp)
    }
    return timestamp
  }
  return async (block) => Number((await timestampOf(block)) - (await timestampOf(originBlock)))
}

/** Every TaskMarket event from `fromBlock` to `toBlock`, in chain order. */
export async function readMarketLog(connection: Reader, fromBlock: bigint, toBlock: bigint, secondsAt: (block: bigint) => Promise<number>): Promise<MarketLogEntry[]> {
  const logs = await getLogsPaged(connection.publicClient, {fromBlock, toBlock}, (range) => connection.publicClient.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, ...range}))
  const entries: MarketLogEntry[] = []
  for (const log of logs) {
    if (log.blockNumber === null || log.transactionHash === null || log.logIndex === null) continue
    entries.push({
      eventName: log.eventName,
      args: log.args as Record<string, unknown>,
      block: log.blockNumber,
      logIndex: log.logIndex,
      transactionHash: log.transactionHash,
      seconds: await secondsAt(log.blockNumber),
    })
  }
  return entries.sort((a, b) => (a.block === b.block ? a.logIndex - b.logIndex : a.block < b.block ? -1 : 1))
}

/** The task id of an event, when it has one. */
export function taskIdOf(entry: MarketLogEntry): string | undefined {
  const id = entry.args.id
  return typeof id === 'bigint' ? id.toString() : undefined
}

export function addressArg(entry: MarketLogEntry, name: string): Address | undefined {
  const value = entry.args[name]
  return typeof value === 'string' ? (value as Address) : undefined
}
