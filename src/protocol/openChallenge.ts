import {parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {type ChallengeClaim, challengeSalt} from './challengeCommitment.js'
import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import {segmentProof} from './segmentProof.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'
import type {Task} from './types.js'

export type OpenChallengeParameters = {task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot' | 'verdictBlock'>; claim: ChallengeClaim}

/** `index`: the challenge's index in the task's queue (-1 when the receipt has no ChallengeQueued event). */
export type OpenChallengeReturnType = TransactionResult & {index: bigint}

export type OpenChallengeErrorType = TransactionErrorType

/**
 * Opens the caller's committed challenge in the open window: the claim and salt, with the Merkle proofs of the
 * segment's committed checkpoints built from the proof's manifest in the store. Returns its index in the queue.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function openChallenge(connection: SignedConnection, {task, claim}: OpenChallengeParameters): Promise<OpenChallengeReturnType> {
  const [proof, salt] = await Promise.all([segmentProof(connection.store, task, claim.segment), challengeSalt(connection, task)])
  const transaction = await sendMarketTransaction(connection, 'openChallenge', [
    task.id,
    claim.segment,
    claim.claimedEndHash,
    salt,
    proof.startHash,
    proof.startProof,
    proof.endHash,
    proof.endProof,
  ])
  const [queued] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'ChallengeQueued'})
  return {...transaction, index: queued ? BigInt(queued.args.index) : -1n}
}
