import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendGameTransaction} from './sendGameTransaction.js'

export type DrawCommitteeParameters = {disputeId: bigint}

export type DrawCommitteeReturnType = TransactionResult

export type DrawCommitteeErrorType = TransactionErrorType

/**
 * Draws a pending committee from blockhash(drawAnchor + 1) (anyone; docs/security.md, finding 4).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function drawCommittee(connection: SignedConnection, {disputeId}: DrawCommitteeParameters): Promise<DrawCommitteeReturnType> {
  return sendGameTransaction(connection, 'drawCommittee', [disputeId])
}
