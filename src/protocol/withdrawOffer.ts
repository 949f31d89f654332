import {solverBookAbi} from '../chain/generated/index.js'
import {bookAddress} from './bookAddress.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

/** Unlists the signer's offer (NotListed when it has none): it claims no more; the tasks it holds go on. */
export async function withdrawOffer(connection: SignedConnection): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: await bookAddress(connection), abi: solverBookAbi, functionName: 'withdrawOffer', args: []})
}
