import {protocolConfigAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'
import {configAddress, type MarketParams} from './getProtocolParams.js'

export type {MarketParams} from './getProtocolParams.js'

/** The market's current parameters (read fresh: the owner may change them between two reads). */
export async function getMarketParams(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<MarketParams> {
  try {
    // viem already decodes the struct with the TS types of MarketParams (uint16/32 as numbers, uint64/256 as bigints)
    return await connection.publicClient.readContract({address: await configAddress(connection), abi: protocolConfigAbi, functionName: 'marketParams'})
  } catch (error) {
    throw toProtocolError('marketParams', error)
  }
}
