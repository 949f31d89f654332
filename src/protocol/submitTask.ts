import {type Hex, parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {canonicalSpecBytes, type JobSpec, paymentFor, specHash as hashSpec} from '../ml/spec/index.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

export type SubmitTaskResult = {taskId: bigint; specHash: Hex; escrow: bigint; transaction: TransactionResult}

/** Publishes the spec to the blob store, then escrows the fee on the market. */
export async function submitTask(connection: SignedConnection, spec: JobSpec): Promise<SubmitTaskResult> {
  const specHash = hashSpec(spec)
  const stored = await connection.store.put(canonicalSpecBytes(spec))
  if (stored !== specHash) throw new Error(`spec stored under ${stored}, expected ${specHash}`)
  const payment = paymentFor(spec)
  const transaction = await sendContractTransaction(connection, {
    address: connection.contracts.market,
    abi: taskMarketAbi,
    functionName: 'submitTask',
    args: [specHash, payment.solverReward, payment.verifierReward, payment.timeoutSeconds, payment.timeoutSeconds, payment.timeoutSeconds],
    value: payment.escrow,
  })
  const [submitted] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'TaskSubmitted'})
  if (!submitted) throw new Error('submitTask mined without a TaskSubmitted event')
  return {taskId: submitted.args.id, specHash, escrow: payment.escrow, transaction}
}
