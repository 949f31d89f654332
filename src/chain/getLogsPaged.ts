import type {PublicClient} from 'viem'

import {InvalidInputError} from '../errors/base.js'

export type LogRange = {fromBlock: bigint; toBlock: bigint}

export type GetLogsPagedParameters = {
  /** First block to read (inclusive). */
  fromBlock: bigint
  /** Last block to read (inclusive). Default: the chain's head when the call starts. */
  toBlock?: bigint | undefined
  /** Blocks per request. Default 10,000, or env GENSYN_LOG_BLOCKS; halved on a "range too large" answer. */
  chunkBlocks?: bigint | undefined
}

export const defaultLogChunkBlocks = 10_000n

/**
 * Reads logs over `fromBlock..toBlock` in requests of at most `chunkBlocks` blocks, since hosted RPCs refuse wide
 * `eth_getLogs` ranges (or answers of more than so many logs). When a request is refused for its size the chunk
 * is halved and the same range asked again, down to one block. `read` is the caller's own typed call
 * (`getContractEvents`, `getLogs`), given each range in turn; the pages come back in block order.
 */
export async function getLogsPaged<Log>(
  client: Pick<PublicClient, 'getBlockNumber'>,
  parameters: GetLogsPagedParameters,
  read: (range: LogRange) => Promise<Log[]>,
): Promise<Log[]> {
  const toBlock = parameters.toBlock ?? (await client.getBlockNumber({cacheTime: 0}))
  let chunk = parameters.chunkBlocks ?? chunkFromEnv()
  const logs: Log[] = []
  let from = parameters.fromBlock
  while (from <= toBlock) {
    const to = from + chunk - 1n < toBlock ? from + chunk - 1n : toBlock
    try {
      logs.push(...(await read({fromBlock: from, toBlock: to})))
      from = to + 1n
    } catch (error) {
      if (chunk === 1n || !isRangeTooLarge(error)) throw error
      chunk = chunk / 2n
    }
  }
  return logs
}

/**
 * The ways RPC providers say a log query is too big: a block-range cap ("block range is too wide", "exceed
 * maximum block range: 2000", "range too large"), a result cap ("query returned more than 10000 results",
 * "Log response size exceeded") or JSON-RPC -32005 (limit exceeded).
 */
export function isRangeTooLarge(error: unknown): boolean {
  for (let current = error as ErrorLike | undefined; current; current = current.cause as ErrorLike | undefined) {
    if (current.code === -32005 || saysRangeTooLarge(current)) return true
  }
  return false
}

type ErrorLike = {message?: unknown; details?: unknown; code?: unknown; cause?: unknown}

/** The error's own text names a log query that is too big (not a rate limit, which is worth a retry). */
export function saysRangeTooLarge(error: unknown): boolean {
  const {message, details} = (error ?? {}) as ErrorLike
  return /block range|range (is )?too (large|wide|big)|more than \d+ (results|logs)|response size|too many (results|logs|blocks)|max(imum)? (block )?range/i.test(`${String(message ?? '')} ${String(details ?? '')}`)
}

function chunkFromEnv(): bigint {
  const value = process.env.GENSYN_LOG_BLOCKS
  if (value === undefined) return defaultLogChunkBlocks
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidInputError(`GENSYN_LOG_BLOCKS: expected a positive whole number of blocks, got "${value}"`)
  return BigInt(value)
}
