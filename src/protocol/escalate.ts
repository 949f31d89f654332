import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendGameTransaction} from './sendGameTransaction.js'

export type EscalateParameters = {disputeId: bigint}

export type EscalateReturnType = TransactionResult

export type EscalateErrorType = TransactionErrorType

/**
 * A party sends the disputed element to the committee (the contract cannot re-execute it).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function escalate(connection: SignedConnection, {disputeId}: EscalateParameters): Promise<EscalateReturnType> {
  return sendGameTransaction(connection, 'escalate', [disputeId])
}
