import type {Connection} from '../protocol/connect.js'
import {getMarketState} from '../protocol/solverBook.js'

/** The book's price and load at one block, as the devnet saw it while running (demand in basis points of a slot). */
export type MarketSample = {block: bigint; timestamp: bigint; price: bigint; demand: bigint; capacity: bigint}

export type MarketSampler = {readonly samples: MarketSample[]; stop(): Promise<void>}

/**
 * Reads `currentPrice()` (with demand and capacity) every `everyMs` while the devnet runs. The controller
 * steps lazily (docs/market.md, section 3): PriceUpdated is only emitted when someone touches the book, so
 * the samples show the price between touches too. Read errors are skipped: a sample is only an observation.
 */
export function startMarketSampler(connection: Connection, everyMs: number): MarketSampler {
  const samples: MarketSample[] = []
  let stopped = false
  let lastBlock = -1n
  const loop = (async () => {
    while (!stopped) {
      try {
        const block = await connection.publicClient.getBlock({blockTag: 'latest'})
        if (block.number !== lastBlock) {
          const state = await getMarketState(connection, {blockNumber: block.number})
          samples.push({block: block.number, timestamp: block.timestamp, price: state.price, demand: state.demand, capacity: state.capacity})
          lastBlock = block.number
        }
      } catch {
        // anvil busy or going away: the next sample will do.
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })()
  return {
    samples,
    async stop() {
      stopped = true
      await loop
    },
  }
}
