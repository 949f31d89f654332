import type {SignedConnection} from './connect.js'
import {type VoteChoice, voteChoices} from './disputeTypes.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendGameTransaction} from './sendGameTransaction.js'

export type VoteParameters = {disputeId: bigint; choice: VoteChoice}

export type VoteReturnType = TransactionResult

export type VoteErrorType = TransactionErrorType

/**
 * A committee member's vote.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function vote(connection: SignedConnection, {disputeId, choice}: VoteParameters): Promise<VoteReturnType> {
  return sendGameTransaction(connection, 'vote', [disputeId, voteChoices[choice]])
}
