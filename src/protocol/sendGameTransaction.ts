import {parseEventLogs} from 'viem'

import {pinpointGameAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {type DisputeOutcome, disputeOutcomes} from './disputeTypes.js'
import {gameAddress} from './gameAddress.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

/** Sends one PinpointGame call: the shared body of the dispute game's actions. */
export async function sendGameTransaction(connection: SignedConnection, functionName: string, args: readonly unknown[]): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: await gameAddress(connection), abi: pinpointGameAbi, functionName, args})
}

/** The outcome a game transaction's DisputeResolved event names ('None' when the dispute goes on). */
export function resolvedOutcome(transaction: TransactionResult): DisputeOutcome {
  const [resolved] = parseEventLogs({abi: pinpointGameAbi, logs: transaction.receipt.logs, eventName: 'DisputeResolved'})
  return resolved ? (disputeOutcomes[Number(resolved.args.outcome)] ?? 'None') : 'None'
}
