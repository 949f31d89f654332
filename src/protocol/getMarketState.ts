import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {Connection} from './connect.js'
import {type ChainError, type ContractRevertError, toProtocolError} from './errors.js'
import type {BlockParameter} from './types.js'

/**
 * The market's public signal (docs/market.md, section 3), all read at one block: the price a claim in the next
 * block would pay if no epoch boundary passes (wei per work unit), the demand (the live tasks' weights, in basis
 * points of a task slot: 10000 is a task whose work pays one solverStake at the price it was counted at), the
 * capacity (the sum of listed offers, tasks at once, each backed by a solverStake) and the utilisation the
 * controller steps on next (the median of its last 7 epoch-end samples, basis points).
 */
export type MarketState = {price: bigint; demand: bigint; capacity: bigint; utilizationBps: number; blockNumber: bigint}

export type GetMarketStateParameters = BlockParameter

export type GetMarketStateReturnType = MarketState

export type GetMarketStateErrorType = ContractRevertError | ChainError

/**
 * Reads {@link MarketState} at one block.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function getMarketState(connection: Pick<Connection, 'publicClient' | 'contracts'>, {blockNumber}: GetMarketStateParameters = {}): Promise<GetMarketStateReturnType> {
  try {
    const address = await bookAddress(connection)
    const at = blockNumber ?? (await connection.publicClient.getBlockNumber())
    const read = (functionName: 'currentPrice' | 'demand' | 'capacity') =>
      connection.publicClient.readContract({address, abi: solverBookAbi, functionName, blockNumber: at})
    const window = connection.publicClient.readContract({address, abi: solverBookAbi, functionName: 'utilizationWindow', blockNumber: at})
    const [price, demand, capacity, [, median]] = await Promise.all([read('currentPrice'), read('demand'), read('capacity'), window])
    return {price, demand, capacity, utilizationBps: median, blockNumber: at}
  } catch (error) {
    throw toProtocolError('getMarketState', error)
  }
}
