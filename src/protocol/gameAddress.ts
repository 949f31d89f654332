import type {Address} from 'viem'

import type {Connection} from './connect.js'
import {linkedAddress} from './linkedAddress.js'

/** The PinpointGame the market opens its disputes in (see {@link linkedAddress}). */
export function gameAddress(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<Address> {
  return linkedAddress(connection, 'game')
}
