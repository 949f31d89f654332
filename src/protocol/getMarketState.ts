import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'

/**
 * The market's public signal (docs/market.md, section 3), all read at one block: the price a claim in the next
 * block would pay if no epoch boundary passes (wei per work unit), the demand (tasks waiting or in progress) and
 * the capacity (the sum of listed offers).
 */
export type MarketState = {price: bigint; demand: bigint; capacity: bigint; blockNumber: bigint}

export async function getMarketState(connection: Pick<Connection, 'publicClient' | 'contracts'>, blockNumber?: bigint): Promise<MarketState> {
  try {
    const address = await bookAddress(connection)
    const at = blockNumber ?? (await connection.publicClient.getBlockNumber({cacheTime: 0}))
    const read = (functionName: 'currentPrice' | 'demand' | 'capacity') =>
      connection.publicClient.readContract({address, abi: solverBookAbi, functionName, blockNumber: at})
    const [price, demand, capacity] = await Promise.all([read('currentPrice'), read('demand'), read('capacity')])
    return {price, demand, capacity, blockNumber: at}
  } catch (error) {
    throw toProtocolError('getMarketState', error)
  }
}
