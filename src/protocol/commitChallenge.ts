import {parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {type ChallengeClaim, challengeCommitment, challengeSalt, sealClaim} from './challengeCommitment.js'
import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'
import type {Task} from './types.js'

export type CommitChallengeParameters = {task: Pick<Task, 'id' | 'verdictBlock'>; claim: ChallengeClaim}

/** `index`: the challenge's seat in the task's queue (-1 when the receipt has no ChallengeCommitted event). */
export type CommitChallengeReturnType = TransactionResult & {index: bigint}

export type CommitChallengeErrorType = TransactionErrorType

/**
 * A whistleblower commits to a challenge of an accepted verdict in its challenge window (docs/disputes.md,
 * "Task lifecycle", 6): only the commitment goes on chain, with the claim sealed for this account alone (see
 * {@link readCommittedClaim}), so nobody can copy it before the window closes. Returns its seat in the queue.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function commitChallenge(connection: SignedConnection, {task, claim}: CommitChallengeParameters): Promise<CommitChallengeReturnType> {
  const salt = await challengeSalt(connection, task)
  const transaction = await sendMarketTransaction(connection, 'commitChallenge', [
    task.id,
    challengeCommitment(task.id, connection.account.address, claim, salt),
    sealClaim(claim, salt),
  ])
  const [committed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'ChallengeCommitted'})
  return {...transaction, index: committed ? BigInt(committed.args.index) : -1n}
}
