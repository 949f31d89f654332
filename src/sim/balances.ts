import type {Address} from 'viem'

import {roleRegistryAbi, taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from '../protocol/connect.js'
import {getAccountMoney} from '../protocol/getAccountMoney.js'
import type {DevnetAccount} from './devnetAccounts.js'
import type {MinedTransaction} from './scanTransactions.js'

/** `credit`: ether the market credited the account (fees, refunds) and it has not withdrawn: its money too. */
export type AccountBalance = {address: Address; wallet: bigint; credit: bigint; stake: bigint}

export type BalanceSnapshot = {
  blockNumber: bigint
  accounts: AccountBalance[]
  registryBalance: bigint
  marketBalance: bigint
  totalStaked: bigint
  /** Stake burned by slashes: stays in the registry for ever. */
  totalBurned: bigint
  totalEscrow: bigint
  /** The market's jackpot (taxes and seed, less payouts). */
  jackpot: bigint
  /** The market's credits not yet withdrawn (the sum of every account's `creditOf`). */
  totalCredit: bigint
}

/** Wallets, market credits, stakes (free + locked + unbonding) and both contracts' holdings, all read at one block (default: the head). */
export async function takeBalanceSnapshot(connection: Connection, accounts: readonly DevnetAccount[], block?: bigint): Promise<BalanceSnapshot> {
  const {publicClient, contracts} = connection
  const blockNumber = block ?? (await publicClient.getBlockNumber({cacheTime: 0}))
  const at = {blockNumber}
  const accountBalances = await Promise.all(
    accounts.map(async ({address}) => {
      return {address, ...(await getAccountMoney(connection, {address, blockNumber}))}
    }),
  )
  const [registryBalance, marketBalance, totalStaked, totalBurned, totalEscrow, jackpot, totalCredit] = await Promise.all([
    publicClient.getBalance({address: contracts.registry, ...at}),
    publicClient.getBalance({address: contracts.market, ...at}),
    publicClient.readContract({address: contracts.registry, abi: roleRegistryAbi, functionName: 'totalStaked', ...at}),
    publicClient.readContract({address: contracts.registry, abi: roleRegistryAbi, functionName: 'totalBurned', ...at}),
    publicClient.readContract({address: contracts.market, abi: taskMarketAbi, functionName: 'totalEscrow', ...at}),
    publicClient.readContract({address: contracts.market, abi: taskMarketAbi, functionName: 'jackpot', ...at}),
    publicClient.readContract({address: contracts.market, abi: taskMarketAbi, functionName: 'totalCredit', ...at}),
  ])
  return {blockNumber, accounts: accountBalances, registryBalance, marketBalance, totalStaked, totalBurned, totalEscrow, jackpot, totalCredit}
}

/** Every wei the accounts paid in fees in the transactions mined after `afterBlock`. */
export function gasFeesPaid(transactions: readonly MinedTransaction[], accounts: readonly Address[], afterBlock: bigint): bigint {
  const senders = new Set(accounts.map((address) => address.toLowerCase()))
  let fees = 0n
  for (const transaction of transactions) {
    if (transaction.block > afterBlock && senders.has(transaction.from.toLowerCase())) fees += transaction.gasUsed * transaction.effectiveGasPrice
  }
  return fees
}
