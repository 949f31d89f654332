import type {SignedConnection} from './connect.js'
import type {DisputeOutcome} from './disputeTypes.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {resolvedOutcome, sendGameTransaction} from './sendGameTransaction.js'

export type TimeoutDisputeParameters = {disputeId: bigint}

export type TimeoutDisputeReturnType = TransactionResult & {outcome: DisputeOutcome}

export type TimeoutDisputeErrorType = TransactionErrorType

/**
 * After the current round's deadline (anyone): the party that posted wins, an arbitration goes to the
 * committee, a committee is tallied. Returns the outcome when the dispute resolved.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function timeoutDispute(connection: SignedConnection, {disputeId}: TimeoutDisputeParameters): Promise<TimeoutDisputeReturnType> {
  const transaction = await sendGameTransaction(connection, 'timeout', [disputeId])
  return {...transaction, outcome: resolvedOutcome(transaction)}
}
