import type {Address} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'

/** The contracts the market names in its immutables (`book`, `config`) or once set (`game`). */
export type MarketLink = 'book' | 'config' | 'game'

const what: Record<MarketLink, string> = {book: 'solver book', config: 'protocol config', game: 'dispute game'}
const known = new WeakMap<object, Partial<Record<MarketLink, Address>>>()

/**
 * A contract the market works with: the connection's when it names one (`--book`, `--config`, `--game`, the
 * devnet file), else the market's own getter, read once per connection (none of them changes once set), so a
 * bare `--market` is enough anywhere.
 */
export async function linkedAddress(connection: Pick<Connection, 'publicClient' | 'contracts'>, link: MarketLink): Promise<Address> {
  const named = connection.contracts[link]
  if (named) return named
  const cache = known.get(connection) ?? {}
  const cached = cache[link]
  if (cached) return cached
  let address: Address
  try {
    address = (await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: link})) as Address
  } catch (error) {
    throw toProtocolError(link, error)
  }
  if (/^0x0{40}$/i.test(address)) throw new InvalidInputError(`--${link}: the market ${connection.contracts.market} names no ${what[link]}`)
  known.set(connection, {...cache, [link]: address})
  return address
}
