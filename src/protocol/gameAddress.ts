import type {Address} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'

const known = new WeakMap<object, Address>()

/**
 * The PinpointGame the market opens its disputes in: `--game` / the devnet file when the connection names one,
 * else the market's own `game()` (read once per connection), so a bare `--market` is enough anywhere.
 */
export async function gameAddress(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<Address> {
  if (connection.contracts.game) return connection.contracts.game
  const cached = known.get(connection)
  if (cached) return cached
  let address: Address
  try {
    address = (await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'game'})) as Address
  } catch (error) {
    throw toProtocolError('game', error)
  }
  if (/^0x0{40}$/i.test(address)) throw new InvalidInputError(`--game: the market ${connection.contracts.market} names no dispute game`)
  known.set(connection, address)
  return address
}
