import type {Address} from 'viem'

import {getAccountMoney} from '../../protocol/getAccountMoney.js'
import type {Reader} from './readMarketLog.js'
import type {BalanceHistory} from './types.js'

export type HistoryAccount = {address: Address; name: string; role: string; strategy?: string | undefined}

/** At most this many sampled blocks: enough for a smooth line, few enough to read in a second or two. */
export const defaultBalanceSamples = 60

/**
 * Every account's wallet (with its market credit) and stake (free + locked + unbonding) at up to `maxSamples` blocks spread evenly
 * from `fromBlock` to `toBlock` (both included), read from anvil's history of past states. A block whose
 * state can no longer be read is left out rather than guessed.
 */
export async function readBalanceHistory(
  connection: Reader,
  accounts: readonly HistoryAccount[],
  fromBlock: bigint,
  toBlock: bigint,
  secondsAt: (block: bigint) => Promise<number>,
  maxSamples = defaultBalanceSamples,
): Promise<BalanceHistory> {
  const samples: BalanceHistory['samples'] = []
  for (const block of sampleBlocks(fromBlock, toBlock, maxSamples)) {
    try {
      const rows = await Promise.all(
        accounts.map(async ({address}) => {
          const {wallet, credit, stake} = await getAccountMoney(connection, {address, blockNumber: block})
          return {wallet: wallet + credit, stake}
        }),
      )
      samples.push({block: block.toString(), seconds: await secondsAt(block), wallet: rows.map((row) => row.wallet.toString()), stake: rows.map((row) => row.stake.toString())})
    } catch {
      // A pruned or not-yet-deployed state: this sample is simply missing.
    }
  }
  return {accounts: accounts.map(({name, role, strategy}) => ({name, role, ...(strategy === undefined ? {} : {strategy})})), samples}
}

/** Up to `count` distinct blocks from `from` to `to`, both ends included, evenly spread. */
export function sampleBlocks(from: bigint, to: bigint, count: number): bigint[] {
  if (to <= from) return [from]
  const span = to - from
  const steps = BigInt(Math.max(1, Math.min(count - 1, Number(span))))
  const blocks = new Set<bigint>()
  for (let step = 0n; step <= steps; step++) blocks.add(from + (span * step) / steps)
  return [...blocks]
}
