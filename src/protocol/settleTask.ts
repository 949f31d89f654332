import {parseEventLogs, type TransactionReceipt} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {type DisputeOutcome, disputeOutcomes} from './disputeTypes.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

/** What one call of the settle pump did, read from its events. */
export type SettleOutcome = (
  | {type: 'settled'; accepted: boolean}
  | {type: 'dispute-started'; disputeId: bigint}
  | {type: 'reopened'}
  /** The task went back to Committed for a fresh verification (a rejection overturned). */
  | {type: 're-verify'}
  /** A dispute's outcome was applied and the task stays Verified (the next challenge, or finalising, comes next). */
  | {type: 'dispute-resolved'}
  | {type: 'moved'}
) & {
  /** Set when this call applied a finished dispute's outcome. */
  resolved?: {disputeId: bigint; outcome: DisputeOutcome} | undefined
}

export type SettleTaskParameters = {taskId: bigint}

export type SettleTaskReturnType = TransactionResult & {outcome: SettleOutcome}

export type SettleTaskErrorType = TransactionErrorType

/**
 * The one function that moves a verified task on once its reveal window has passed (docs/disputes.md,
 * "Task lifecycle", 8): it applies a finished dispute, opens the next queued one, or finalises. Call it until
 * the task is Settled or reopened; it reverts DisputeInProgress while a game is being played. Anyone may call it.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function settleTask(connection: SignedConnection, {taskId}: SettleTaskParameters): Promise<SettleTaskReturnType> {
  const transaction = await sendMarketTransaction(connection, 'settle', [taskId])
  return {...transaction, outcome: settleOutcome(transaction.receipt)}
}

export function settleOutcome(receipt: Pick<TransactionReceipt, 'logs'>): SettleOutcome {
  const logs = parseEventLogs({abi: taskMarketAbi, logs: receipt.logs})
  const find = <Name extends (typeof logs)[number]['eventName']>(name: Name) =>
    logs.find((log): log is Extract<(typeof logs)[number], {eventName: Name}> => log.eventName === name)
  const resolvedLog = find('DisputeResolved')
  const resolved = resolvedLog ? {disputeId: resolvedLog.args.disputeId, outcome: disputeOutcomes[resolvedLog.args.outcome] ?? 'None'} : undefined
  const extra = resolved ? {resolved} : {}
  const started = find('DisputeStarted')
  if (started) return {type: 'dispute-started', disputeId: started.args.disputeId, ...extra}
  const settled = find('TaskSettled')
  if (settled) return {type: 'settled', accepted: settled.args.accepted, ...extra}
  if (find('TaskReopened')) return {type: 'reopened', ...extra}
  if (find('VerificationReopened')) return {type: 're-verify', ...extra}
  if (resolved) return {type: 'dispute-resolved', resolved}
  return {type: 'moved'}
}
