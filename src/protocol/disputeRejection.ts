import type {Hex} from 'viem'

import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type SegmentProof = {startHash: Hex; startProof: readonly Hex[]; endHash: Hex; endProof: readonly Hex[]}

export type DisputeRejectionParameters = {taskId: bigint} & SegmentProof

export type DisputeRejectionReturnType = TransactionResult

export type DisputeRejectionErrorType = TransactionErrorType

/**
 * The solver contests a rejection in the challenge window (docs/disputes.md, "Task lifecycle", 6): the Merkle
 * proofs show the verdict's segment's committed start and end; the verdict's replay hash is the verifier's claim.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function disputeRejection(connection: SignedConnection, {taskId, startHash, startProof, endHash, endProof}: DisputeRejectionParameters): Promise<DisputeRejectionReturnType> {
  return sendMarketTransaction(connection, 'disputeRejection', [taskId, startHash, startProof, endHash, endProof])
}
