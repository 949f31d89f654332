import type {Address} from 'viem'

import type {BlobStore} from '../../store/types.js'
import {committedProofs} from './committedProofs.js'
import {detectionMatrix} from './detectionMatrix.js'
import {readBalanceHistory, type HistoryAccount} from './readBalanceHistory.js'
import type {MinedTransaction} from '../scanTransactions.js'
import {readGasByPhase} from './readGasByPhase.js'
import {blockClock, type Reader, readMarketLog} from './readMarketLog.js'
import {readTrainingCurves} from './readTrainingCurves.js'
import {taskTimeline} from './taskTimeline.js'
import {readWhistleblowerHistory} from './readWhistleblowerHistory.js'
import type {RunHistory} from './types.js'

export type ReadRunHistoryOptions = {
  connection: Reader
  /** The deployment block: where event scans start and chain time is 0. */
  deployBlock: bigint
  /** The first block with every contract in place (balances are sampled from it). */
  balancesFrom: bigint
  toBlock: bigint
  /** The transactions mined after deployBlock up to toBlock (scanTransactions), for gas per phase. */
  transactions: readonly MinedTransaction[]
  accounts: readonly HistoryAccount[]
  maxBalanceSamples?: number
  /** The run's blob store: with it, every committed proof's training curve is read (readTrainingCurves). */
  store?: BlobStore | undefined
}

/** The run over time, from the chain: balances, each task's phases, who was caught, gas per phase, training curves. */
export async function readRunHistory(options: ReadRunHistoryOptions): Promise<RunHistory> {
  const {connection, deployBlock, toBlock} = options
  const secondsAt = blockClock(connection, deployBlock)
  const entries = await readMarketLog(connection, deployBlock, toBlock, secondsAt)
  const names = new Map(options.accounts.map((account) => [account.address.toLowerCase(), account.name]))
  const [balances, gas, headSeconds, whistleblowers] = await Promise.all([
    readBalanceHistory(connection, options.accounts, options.balancesFrom, toBlock, secondsAt, options.maxBalanceSamples),
    readGasByPhase(connection, options.transactions),
    secondsAt(toBlock),
    readWhistleblowerHistory(connection, deployBlock, toBlock, secondsAt, (address) => names.get(address.toLowerCase()) ?? address),
  ])
  return {
    fromBlock: deployBlock.toString(),
    toBlock: toBlock.toString(),
    balances,
    timeline: taskTimeline(entries, {block: toBlock, seconds: headSeconds}),
    detection: detectionMatrix(
      entries,
      options.accounts.map((account) => ({address: account.address, name: account.name, role: account.role, strategy: account.strategy ?? 'honest'})),
    ),
    gas,
    whistleblowers,
    ...(options.store === undefined ? {} : {curves: await readTrainingCurves({store: options.store, proofs: committedProofs(entries), actorOf: actorLookup(options.accounts)})}),
  }
}

function actorLookup(accounts: readonly HistoryAccount[]): (address: Address) => {name: string; strategy?: string | undefined} {
  const byAddress = new Map(accounts.map((account) => [account.address.toLowerCase(), account]))
  return (address) => byAddress.get(address.toLowerCase()) ?? {name: address}
}
