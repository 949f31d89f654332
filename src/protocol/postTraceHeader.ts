import type {SignedConnection} from './connect.js'
import type {TraceHeader} from './disputeTypes.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendGameTransaction} from './sendGameTransaction.js'

export type PostTraceHeaderParameters = {disputeId: bigint} & TraceHeader

export type PostTraceHeaderReturnType = TransactionResult

export type PostTraceHeaderErrorType = TransactionErrorType

/**
 * TraceHeader round: the caller's element count, graph hash g_m and final commitment c_m of the disputed step.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function postTraceHeader(connection: SignedConnection, {disputeId, opCount, graphHash, finalCommitment}: PostTraceHeaderParameters): Promise<PostTraceHeaderReturnType> {
  return sendGameTransaction(connection, 'postTraceHeader', [disputeId, opCount, graphHash, finalCommitment])
}
