import type {Address} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'

const known = new WeakMap<object, Address>()

/**
 * The SolverBook the market prices its claims with: the connection's when it names one (`--book`, the devnet
 * file), else the market's own `book()` (an immutable, read once per connection), so a bare `--market` is enough.
 */
export async function bookAddress(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<Address> {
  if (connection.contracts.book) return connection.contracts.book
  const cached = known.get(connection)
  if (cached) return cached
  let address: Address
  try {
    address = await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'book'})
  } catch (error) {
    throw toProtocolError('book', error)
  }
  known.set(connection, address)
  return address
}
