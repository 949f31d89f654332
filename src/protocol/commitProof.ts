import type {Hex} from 'viem'

import type {StackedProof} from '../pol/stackedProof.js'
import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type ProofCommitment = {
  proofRoot: Hex
  manifestHash: Hex
  checkpointCount: number
  checkpointInterval: number
  totalSteps: number
  /** {@link sealHonest} of the honest proof (the committed one unless the task is a forced error). */
  sealedHonest: Hex
  /**
   * A task with a parent (a split job's later task) stacks on the parent's proof: {@link stackedProof} of the
   * two manifests. Left out for a task without a parent.
   */
  start?: StackedProof | undefined
}

export type CommitProofParameters = {taskId: bigint} & ProofCommitment

export type CommitProofReturnType = TransactionResult

export type CommitProofErrorType = TransactionErrorType

const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`

/**
 * Needs block.number > claimBlock + 1 (the forced-error seed must exist): RandomnessNotReady before. `totalSteps`
 * may be below the task's maxSteps (an early stop); the rewards are then pro rata (docs/market.md, section 2).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function commitProof(connection: SignedConnection, {taskId, ...commitment}: CommitProofParameters): Promise<CommitProofReturnType> {
  return sendMarketTransaction(connection, 'commitProof', [
    taskId,
    commitment.proofRoot,
    commitment.manifestHash,
    commitment.checkpointCount,
    commitment.checkpointInterval,
    commitment.totalSteps,
    commitment.sealedHonest,
    {
      checkpoint: commitment.start?.startCheckpoint ?? ZERO_HASH,
      proof: commitment.start?.startProof ?? [],
      parentFinalProof: commitment.start?.parentFinalProof ?? [],
    },
  ])
}
