import {type Address, formatEther} from 'viem'

import {taskMarketAbi} from '../../chain/generated/index.js'
import type {Connection} from '../../protocol/connect.js'
import {disputeOutcomes} from '../../protocol/disputeTypes.js'
import {getAccountMoney} from '../../protocol/getAccountMoney.js'
import {getTask} from '../../protocol/getTask.js'
import type {ChainFeedEvent, ChainView} from './dashboardState.js'
import {trimDecimals} from './describeActorEvent.js'
import {getLogsPaged} from '../../chain/getLogsPaged.js'

export type ChainPoller = {
  /** Reads the chain if a block was mined since the last read; undefined when the head has not moved. */
  poll(): Promise<ChainView | undefined>
}

export type ChainPollerOptions = {
  connection: Pick<Connection, 'publicClient' | 'contracts'>
  addresses: readonly Address[]
  /** The first block whose market events the feed shows (the deploy block: earlier ones are the setup). */
  fromBlock: bigint
  /** An actor's name for an address (chain events name accounts, the dashboard names actors). */
  nameOf: (address: Address) => string
}

const finalStatuses = new Set(['Settled', 'Expired'])

/**
 * Reads what the dashboard shows from the chain, once per new block: the head, every account's wallet and stake,
 * every task's status (settled and expired tasks are read once), and the market's money events since the last
 * read (slashes, payouts, jackpot shares, timeouts), which the actors' own lines do not carry.
 */
export function createChainPoller(options: ChainPollerOptions): ChainPoller {
  const {connection, nameOf} = options
  const {publicClient, contracts} = connection
  let lastBlock: bigint | undefined
  const finalTasks = new Map<bigint, ChainView['tasks'][number]>()
  return {
    async poll() {
      const head = await publicClient.getBlock({blockTag: 'latest'})
      if (lastBlock !== undefined && head.number <= lastBlock) return undefined
      const blockNumber = head.number
      const [balances, count, jackpot, logs] = await Promise.all([
        Promise.all(
          options.addresses.map(async (address) => {
            const {wallet, credit, stake} = await getAccountMoney(connection, {address, blockNumber})
            return {address, wallet: wallet + credit, stake}
          }),
        ),
        publicClient.readContract({address: contracts.market, abi: taskMarketAbi, functionName: 'taskCount', blockNumber}),
        publicClient.readContract({address: contracts.market, abi: taskMarketAbi, functionName: 'jackpot', blockNumber}),
        getLogsPaged(publicClient, {fromBlock: lastBlock === undefined ? options.fromBlock : lastBlock + 1n, toBlock: blockNumber}, (range) => publicClient.getContractEvents({address: contracts.market, abi: taskMarketAbi, ...range})),
      ])
      const ids = Array.from({length: Number(count)}, (_, index) => BigInt(index + 1))
      const tasks = await Promise.all(
        ids.map(async (id) => {
          const cached = finalTasks.get(id)
          if (cached) return cached
          const task = await getTask(connection, {taskId: id})
          const summary = {id, status: task.status, solver: task.solver, verifier: task.verifier, attempts: task.attempts}
          if (finalStatuses.has(task.status)) finalTasks.set(id, summary)
          return summary
        }),
      )
      lastBlock = blockNumber
      const byId = new Map(tasks.map((task) => [task.id, task]))
      const events = logs.flatMap((log) => describeLog(log as unknown as MarketLog, byId, nameOf))
      return {head: {number: head.number, timestamp: head.timestamp}, balances, tasks, jackpot, events}
    },
  }
}

type MarketLog = {eventName: string; blockNumber: bigint; args: Record<string, unknown>}

function describeLog(log: MarketLog, tasks: Map<bigint, ChainView['tasks'][number]>, nameOf: (address: Address) => string): ChainFeedEvent[] {
  const {args} = log
  const block = log.blockNumber
  const id = args.id as bigint | undefined
  const task = `#${String(id)}`
  const eth = (value: unknown) => `${trimDecimals(formatEther(BigInt(value as bigint)), 6)} ETH`
  switch (log.eventName) {
    case 'TaskSubmitted':
      return [{block, kind: 'submit', actor: nameOf(args.submitter as Address), text: `submitted ${task}, escrow ${eth(args.escrow)}`}]
    case 'StakeSlashed': {
      const winner = args.winner as Address
      const to = /^0x0+$/.test(winner) ? 'no winner' : `${eth(args.toWinner)} to ${nameOf(winner)}`
      return [{block, kind: 'slash', actor: nameOf(args.account as Address), text: `SLASHED ${eth(args.amount)} on ${task}: ${to}`}]
    }
    case 'TaskSettled': {
      const current = id === undefined ? undefined : tasks.get(id)
      const solver = current ? nameOf(current.solver) : 'solver'
      const verifier = current ? nameOf(current.verifier) : 'verifier'
      return [{block, kind: 'payout', actor: 'market', text: `${task} settled: ${solver} paid ${eth(args.solverPaid)}, ${verifier} ${eth(args.verifierPaid)}`}]
    }
    case 'TaskRejected':
      return [{block, kind: 'payout', actor: 'market', text: `${task} rejected: ${nameOf(args.solver as Address)} slashed ${eth(args.slashed)}, verifier paid ${eth(args.verifierPaid)}`}]
    case 'ForcedErrorRevealed': {
      const catchers = (args.catchers as Address[] | undefined) ?? []
      const paid = (args.paidEach as bigint[] | undefined) ?? []
      const shares = catchers.map((catcher, index) => `${nameOf(catcher)} ${eth(paid[index] ?? 0n)}`).join(', ')
      return [{block, kind: 'jackpot', actor: 'market', text: `${task} forced error revealed: jackpot ${shares || 'unclaimed'}`}]
    }
    case 'ClaimTimedOut':
      return [{block, kind: 'timeout', actor: nameOf(args.solver as Address), text: `timed out on ${task}, slashed ${eth(args.slashed)}`}]
    case 'TaskExpired':
      return [{block, kind: 'timeout', actor: 'market', text: `${task} expired, refunded ${eth(args.refunded)}`}]
    case 'DisputeResolved':
      return [{block, kind: 'dispute', actor: 'market', text: `dispute ${String(args.disputeId)} on ${task} resolved: ${disputeOutcomes[Number(args.outcome)] ?? String(args.outcome)}`}]
    default:
      return []
  }
}
