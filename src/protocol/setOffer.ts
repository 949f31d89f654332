import {solverBookAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import {bookAddress} from './bookAddress.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

const MAX_UINT32 = 2 ** 32 - 1

/**
 * Lists (or updates) the signer's offer in the SolverBook (docs/market.md, section 3): it may claim tasks while
 * the posted price is at least `ask` (wei per work unit), `capacity` at once. Needs the SOLVER role
 * (NotRegistered otherwise) and `capacity * solverStake` of stake, free or locked (OfferNotBacked otherwise:
 * `ensureRegistered(connection, 'solver', capacity)` tops it up).
 */
export async function setOffer(connection: SignedConnection, offer: {ask: bigint; capacity: number}): Promise<TransactionResult> {
  if (offer.ask <= 0n) throw new InvalidInputError(`ask: expected a price above 0 wei per work unit, got ${offer.ask}`)
  if (!Number.isInteger(offer.capacity) || offer.capacity < 1 || offer.capacity > MAX_UINT32) {
    throw new InvalidInputError(`capacity: expected a whole number of tasks in [1, ${MAX_UINT32}], got ${offer.capacity}`)
  }
  return sendContractTransaction(connection, {address: await bookAddress(connection), abi: solverBookAbi, functionName: 'setOffer', args: [offer.ask, offer.capacity]})
}
