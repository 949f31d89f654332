import type {Address} from 'viem'

import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {Connection} from './connect.js'
import {toProtocolError} from './errors.js'

/** A solver's offer in the SolverBook: `ask` wei per work unit, `capacity` tasks at once, `active` held now. */
export type Offer = {ask: bigint; capacity: number; active: number; listed: boolean}

export async function getOffer(connection: Pick<Connection, 'publicClient' | 'contracts'>, solver: Address): Promise<Offer> {
  try {
    const raw = await connection.publicClient.readContract({address: await bookAddress(connection), abi: solverBookAbi, functionName: 'offerOf', args: [solver]})
    return {ask: raw.ask, capacity: Number(raw.capacity), active: Number(raw.active), listed: raw.listed}
  } catch (error) {
    throw toProtocolError('offerOf', error)
  }
}
