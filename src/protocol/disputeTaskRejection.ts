import type {SignedConnection} from './connect.js'
import {disputeRejection} from './disputeRejection.js'
import type {TransactionErrorType} from './errors.js'
import {segmentProof} from './segmentProof.js'
import type {TransactionResult} from './sendContractTransaction.js'
import type {Task} from './types.js'

export type DisputeTaskRejectionParameters = {task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot' | 'rejectSegment'>}

export type DisputeTaskRejectionReturnType = TransactionResult

export type DisputeTaskRejectionErrorType = TransactionErrorType

/**
 * The solver contests a rejection: proves the verdict's segment's committed checkpoints from its manifest.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function disputeTaskRejection(connection: SignedConnection, {task}: DisputeTaskRejectionParameters): Promise<DisputeTaskRejectionReturnType> {
  return disputeRejection(connection, {taskId: task.id, ...(await segmentProof(connection.store, task, task.rejectSegment))})
}
