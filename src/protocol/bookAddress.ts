import type {Address} from 'viem'

import type {Connection} from './connect.js'
import {linkedAddress} from './linkedAddress.js'

/** The SolverBook the market prices its claims with (see {@link linkedAddress}). */
export function bookAddress(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<Address> {
  return linkedAddress(connection, 'book')
}
