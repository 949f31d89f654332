import type {Address} from 'viem'

import {solverBookAbi, taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from '../protocol/connect.js'
import type {MarketSample} from './sampleMarket.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

/** One point of the market's price over time: a PriceUpdated event, or the devnet's sample of currentPrice(). */
export type PricePoint = {
  block: string
  /** Chain-clock seconds since the deployment. */
  seconds: number
  /** Wei per work unit. */
  price: string
  /** The book's demand: the live tasks' weights, basis points of a task slot (docs/market.md, section 3). */
  demand: string
  /** Tasks at once over the listed offers. */
  capacity: string
  source: 'event' | 'sample'
}

/** A solver's offer over the run: its joins (OfferSet while unlisted) and leaves (OfferWithdrawn). */
export type OfferHistory = {
  solver: string
  /** The last ask it listed (wei per work unit) and capacity. */
  ask: string
  capacity: number
  joins: number
  leaves: number
  events: {seconds: number; block: string; type: 'listed' | 'withdrawn'; ask?: string}[]
}

/** A training timeout (ClaimTimedOut): the solver lost part of its stake and the task went back to the pool. */
export type TimeoutReport = {taskId: string; solver: string; slashed: string; seconds: number}

export type MarketHistory = {
  series: PricePoint[]
  offers: OfferHistory[]
  timeouts: TimeoutReport[]
  price: {start: string; end: string; min: string; max: string}
  /**
   * The supply shock: the first offer withdrawn in the run, the price then, and the highest price after it
   * (null without a withdrawal).
   */
  shock: {seconds: number; solver: string; price: string; maxAfter: string; rose: boolean} | null
}

type Reader = Pick<Connection, 'publicClient' | 'contracts'>

/**
 * Reads the market's history since `fromBlock`: the price (PriceUpdated events merged with the devnet's
 * samples, in block order), every offer listed and withdrawn per solver, and every training timeout.
 */
export async function readMarketHistory(connection: Reader, fromBlock: bigint, samples: readonly MarketSample[], nameOf: (address: Address) => string): Promise<MarketHistory> {
  const client = connection.publicClient
  const book = connection.contracts.book
  const [updated, set, withdrawn, timedOut, origin] = await Promise.all([
    book ? getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: book, abi: solverBookAbi, eventName: 'PriceUpdated', ...range})) : [],
    book ? getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: book, abi: solverBookAbi, eventName: 'OfferSet', ...range})) : [],
    book ? getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: book, abi: solverBookAbi, eventName: 'OfferWithdrawn', ...range})) : [],
    getLogsPaged(client, {fromBlock}, (range) => client.getContractEvents({address: connection.contracts.market, abi: taskMarketAbi, eventName: 'ClaimTimedOut', ...range})),
    client.getBlock({blockNumber: fromBlock}),
  ])
  const timestamps = new Map<bigint, bigint>(samples.map((sample) => [sample.block, sample.timestamp]))
  const secondsAt = async (block: bigint | null): Promise<number> => {
    if (block === null) return 0
    let timestamp = timestamps.get(block)
    if (timestamp === undefined) {
      timestamp = (await client.getBlock({blockNumber: block})).timestamp
      timestamps.set(block, timestamp)
    }
    return Number(timestamp - origin.timestamp)
  }

  const points: (PricePoint & {order: bigint})[] = []
  for (const log of updated) {
    const {price, demand, capacity} = log.args as {price?: bigint; demand?: bigint; capacity?: bigint}
    if (price === undefined || log.blockNumber === null) continue
    // An event at block b is the price from b on: it sorts after a sample read at b (which saw the block's end state too).
    points.push({order: log.blockNumber * 2n + 1n, block: log.blockNumber.toString(), seconds: await secondsAt(log.blockNumber), price: price.toString(), demand: String(demand ?? 0n), capacity: String(capacity ?? 0n), source: 'event'})
  }
  for (const sample of samples) {
    if (sample.block < fromBlock) continue
    points.push({order: sample.block * 2n, block: sample.block.toString(), seconds: Number(sample.timestamp - origin.timestamp), price: sample.price.toString(), demand: sample.demand.toString(), capacity: sample.capacity.toString(), source: 'sample'})
  }
  points.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
  const series = points.map(({order: _order, ...point}) => point)

  // Offers: a solver joins when it lists while unlisted (an OfferSet while listed only updates it), and leaves on a withdrawal.
  type OfferLog = {solver: Address; block: bigint; index: number; type: 'listed' | 'withdrawn'; ask?: bigint; capacity?: number}
  const offerLogs: OfferLog[] = [
    ...set.map((log) => {
      const args = log.args as {solver?: Address; ask?: bigint; capacity?: number}
      return {solver: args.solver!, block: log.blockNumber ?? 0n, index: log.logIndex ?? 0, type: 'listed' as const, ask: args.ask, capacity: Number(args.capacity ?? 0)}
    }),
    ...withdrawn.map((log) => ({solver: (log.args as {solver?: Address}).solver!, block: log.blockNumber ?? 0n, index: log.logIndex ?? 0, type: 'withdrawn' as const})),
  ].sort((a, b) => (a.block === b.block ? a.index - b.index : a.block < b.block ? -1 : 1))
  const offers = new Map<string, OfferHistory & {listed: boolean}>()
  for (const log of offerLogs) {
    const key = log.solver.toLowerCase()
    const history = offers.get(key) ?? {solver: nameOf(log.solver), ask: '0', capacity: 0, joins: 0, leaves: 0, events: [], listed: false}
    offers.set(key, history)
    const seconds = await secondsAt(log.block)
    if (log.type === 'listed') {
      history.ask = String(log.ask ?? 0n)
      history.capacity = log.capacity ?? 0
      if (!history.listed) {
        history.joins++
        history.events.push({seconds, block: log.block.toString(), type: 'listed', ask: history.ask})
      }
      history.listed = true
    } else {
      history.leaves++
      history.listed = false
      history.events.push({seconds, block: log.block.toString(), type: 'withdrawn'})
    }
  }

  const timeouts: TimeoutReport[] = []
  for (const log of timedOut) {
    const {id, solver, slashed} = log.args as {id?: bigint; solver?: Address; slashed?: bigint}
    if (id === undefined || solver === undefined) continue
    timeouts.push({taskId: id.toString(), solver: nameOf(solver), slashed: String(slashed ?? 0n), seconds: await secondsAt(log.blockNumber)})
  }

  const prices = series.map((point) => BigInt(point.price))
  const extreme = (pick: (a: bigint, b: bigint) => bigint) => (prices.length === 0 ? '0' : prices.reduce(pick).toString())
  const firstLeave = offerLogs.find((log) => log.type === 'withdrawn')
  let shock: MarketHistory['shock'] = null
  if (firstLeave) {
    const before = points.filter((point) => point.order <= firstLeave.block * 2n + 1n).at(-1)
    const after = points.filter((point) => point.order > firstLeave.block * 2n + 1n).map((point) => BigInt(point.price))
    const price = BigInt(before?.price ?? '0')
    const maxAfter = after.reduce((max, value) => (value > max ? value : max), price)
    shock = {seconds: await secondsAt(firstLeave.block), solver: nameOf(firstLeave.solver), price: price.toString(), maxAfter: maxAfter.toString(), rose: maxAfter > price}
  }
  return {
    series,
    offers: [...offers.values()].map(({listed: _listed, ...history}) => history).sort((a, b) => a.solver.localeCompare(b.solver, 'en', {numeric: true})),
    timeouts,
    price: {start: series[0]?.price ?? '0', end: series.at(-1)?.price ?? '0', min: extreme((a, b) => (a < b ? a : b)), max: extreme((a, b) => (a > b ? a : b))},
    shock,
  }
}
