import type {Address} from 'viem'

import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

/**
 * Unlists `solver`'s offer once its stake (free + locked) no longer covers `capacity * solverStake` (docs/market.md,
 * section 3): anyone may, so that listed capacity nobody backs stops lowering the price. OfferBacked while the stake
 * still covers it, NotListed without an offer.
 */
export async function pruneOffer(connection: SignedConnection, solver: Address): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: await bookAddress(connection), abi: solverBookAbi, functionName: 'pruneOffer', args: [solver]})
}
