import type {Hex} from 'viem'

import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendGameTransaction} from './sendGameTransaction.js'

export type PostStateParameters = {disputeId: bigint; stateHash: Hex}

export type PostStateReturnType = TransactionResult

export type PostStateErrorType = TransactionErrorType

/**
 * Steps round: the caller's state hash S_mid for `mid = (lo + hi) / 2`.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function postState(connection: SignedConnection, {disputeId, stateHash}: PostStateParameters): Promise<PostStateReturnType> {
  return sendGameTransaction(connection, 'postState', [disputeId, stateHash])
}
