import type {Address} from 'viem'

import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {Connection} from './connect.js'
import {type ChainError, type ContractRevertError, toProtocolError} from './errors.js'

/** A solver's offer in the SolverBook: `ask` wei per work unit, `capacity` tasks at once, `active` held now. */
export type Offer = {ask: bigint; capacity: number; active: number; listed: boolean}

export type GetOfferParameters = {solver: Address}

export type GetOfferReturnType = Offer

export type GetOfferErrorType = ContractRevertError | ChainError

/**
 * `solver`'s offer in the SolverBook (all zeros, not listed, when it has none).
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function getOffer(connection: Pick<Connection, 'publicClient' | 'contracts'>, {solver}: GetOfferParameters): Promise<GetOfferReturnType> {
  try {
    const raw = await connection.publicClient.readContract({address: await bookAddress(connection), abi: solverBookAbi, functionName: 'offerOf', args: [solver]})
    return {ask: raw.ask, capacity: Number(raw.capacity), active: Number(raw.active), listed: raw.listed}
  } catch (error) {
    throw toProtocolError('offerOf', error)
  }
}
