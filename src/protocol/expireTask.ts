import {type Address, parseEventLogs, type TransactionReceipt} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {MissingEventError, type TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'
import {type TaskStatus, taskStatuses} from './types.js'

/** What `expire` did, read from its events. */
export type ExpireOutcome =
  /** The task ended and its escrow went back to the submitter. */
  | {type: 'expired'; fromStatus: TaskStatus; refunded: bigint}
  /** A claimed task's training deadline passed: the solver lost `slashed` of its stake and the task reopened. */
  | {type: 'timed-out'; solver: Address; slashed: bigint}

export type ExpireTaskParameters = {taskId: bigint}

export type ExpireTaskReturnType = TransactionResult & {outcome: ExpireOutcome}

export type ExpireTaskErrorType = TransactionErrorType | MissingEventError

/**
 * Moves on a task whose stage deadline passed (anyone may): a claimed task without a proof reopens with its
 * solver slashed (a training timeout, docs/market.md section 5); any other expires and refunds its escrow (a task
 * with a parent that expired or stopped early expires at once).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 * @throws {@link MissingEventError} when the receipt has neither a TaskExpired nor a ClaimTimedOut event
 */
export async function expireTask(connection: SignedConnection, {taskId}: ExpireTaskParameters): Promise<ExpireTaskReturnType> {
  const transaction = await sendMarketTransaction(connection, 'expire', [taskId])
  return {...transaction, outcome: expireOutcome(transaction.receipt)}
}

export function expireOutcome(receipt: Pick<TransactionReceipt, 'logs'>): ExpireOutcome {
  const logs = parseEventLogs({abi: taskMarketAbi, logs: receipt.logs})
  for (const log of logs) {
    if (log.eventName === 'ClaimTimedOut') return {type: 'timed-out', solver: log.args.solver, slashed: log.args.slashed}
    if (log.eventName === 'TaskExpired') return {type: 'expired', fromStatus: taskStatuses[log.args.fromStatus] ?? 'None', refunded: log.args.refunded}
  }
  throw new MissingEventError('expire mined without a TaskExpired or ClaimTimedOut event')
}
