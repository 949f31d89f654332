import type {Address} from 'viem'

import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

export type PruneOfferParameters = {
  /** The solver whose offer to unlist. */
  solver: Address
}

export type PruneOfferReturnType = TransactionResult

export type PruneOfferErrorType = TransactionErrorType

/**
 * Unlists `solver`'s offer once its stake (free + locked) no longer covers `capacity * solverStake` (docs/market.md,
 * section 3): anyone may, so that listed capacity nobody backs stops lowering the price. OfferBacked while the stake
 * still covers it, NotListed without an offer.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function pruneOffer(connection: SignedConnection, {solver}: PruneOfferParameters): Promise<PruneOfferReturnType> {
  return sendContractTransaction(connection, {address: await bookAddress(connection), abi: solverBookAbi, functionName: 'pruneOffer', args: [solver]})
}
