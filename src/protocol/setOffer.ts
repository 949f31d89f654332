import {solverBookAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import {bookAddress} from './bookAddress.js'
import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

const MAX_UINT32 = 2 ** 32 - 1

export type SetOfferParameters = {
  /** The lowest price the solver takes a task at, wei per work unit. */
  ask: bigint
  /** How many tasks it may hold at once. */
  capacity: number
}

export type SetOfferReturnType = TransactionResult

export type SetOfferErrorType = InvalidInputError | TransactionErrorType

/**
 * Lists (or updates) the signer's offer in the SolverBook (docs/market.md, section 3): it may claim tasks while
 * the posted price is at least `ask` (wei per work unit), `capacity` at once. Needs the SOLVER role
 * (NotRegistered otherwise) and `capacity * solverStake` of stake, free or locked (OfferNotBacked otherwise:
 * `ensureRegistered(connection, 'solver', capacity)` tops it up).
 *
 * @throws {@link InvalidInputError} when `ask` is not above 0 or `capacity` is not a whole number in [1, 2^32 - 1]
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function setOffer(connection: SignedConnection, offer: SetOfferParameters): Promise<SetOfferReturnType> {
  if (offer.ask <= 0n) throw new InvalidInputError(`ask: expected a price above 0 wei per work unit, got ${offer.ask}`)
  if (!Number.isInteger(offer.capacity) || offer.capacity < 1 || offer.capacity > MAX_UINT32) {
    throw new InvalidInputError(`capacity: expected a whole number of tasks in [1, ${MAX_UINT32}], got ${offer.capacity}`)
  }
  return sendContractTransaction(connection, {address: await bookAddress(connection), abi: solverBookAbi, functionName: 'setOffer', args: [offer.ask, offer.capacity]})
}
