import type {Hex} from 'viem'

import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendGameTransaction} from './sendGameTransaction.js'

export type PostCommitmentParameters = {disputeId: bigint; commitment: Hex}

export type PostCommitmentReturnType = TransactionResult

export type PostCommitmentErrorType = TransactionErrorType

/**
 * Operators round: the caller's commitment c_mid for `mid = (lo + hi) / 2`.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function postCommitment(connection: SignedConnection, {disputeId, commitment}: PostCommitmentParameters): Promise<PostCommitmentReturnType> {
  return sendGameTransaction(connection, 'postCommitment', [disputeId, commitment])
}
