import {type Hex, parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {InvalidInputError} from '../errors/base.js'
import {escrowFor} from '../ml/estimate/escrowFor.js'
import {estimateWork} from '../ml/estimate/estimateWork.js'
import {canonicalSpecBytes, type JobSpec, maxPriceWei, specHash as hashSpec} from '../ml/spec/index.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import type {SignedConnection} from './connect.js'
import {MissingEventError, type TransactionErrorType, UnexpectedChainValueError} from './errors.js'
import {getMarketParams} from './getMarketParams.js'
import {getWorkTable} from './getWorkTable.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type SubmitTaskResult = {
  taskId: bigint
  specHash: Hex
  /** The ether escrowed: ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000). */
  escrow: bigint
  workUnits: bigint
  maxSteps: bigint
  /** payment.maxPrice in wei per work unit. */
  maxPrice: bigint
  parentId: bigint
  transaction: TransactionResult
}

export type SubmitTaskOptions = {
  /** The task whose final checkpoint this one starts from (a split job's previous task, same submitter). */
  parentId?: bigint | undefined
}

export type SubmitTaskParameters = {
  /** The job to submit: its canonical bytes go to the blob store, its hash on chain. */
  spec: JobSpec
} & SubmitTaskOptions

export type SubmitTaskReturnType = SubmitTaskResult

export type SubmitTaskErrorType = InvalidInputError | TransactionErrorType | MissingEventError | UnexpectedChainValueError

/**
 * Publishes the spec to the blob store, estimates its work with the chain's work table (a spec beyond a
 * protocol limit is refused here with InvalidInputError), then submits it with the escrow its maximum price and
 * the current verifier fee call for (docs/market.md, section 2).
 *
 * @throws {@link InvalidInputError} when the spec is beyond a protocol limit
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 * @throws {@link UnexpectedChainValueError} when the store keeps the spec under another hash
 * @throws {@link MissingEventError} when the receipt has no TaskSubmitted event
 */
export async function submitTask(connection: SignedConnection, {spec, ...options}: SubmitTaskParameters): Promise<SubmitTaskReturnType> {
  const [table, market] = await Promise.all([getWorkTable(connection), getMarketParams(connection)])
  const {workUnits} = estimateWork(spec, table)
  const range = taskStepRange(spec)
  const maxSteps = BigInt(range.end - range.start)
  const maxPrice = maxPriceWei(spec)
  const escrow = escrowFor(workUnits, maxPrice, market.verifierFeeBps)
  const parentId = options.parentId ?? 0n

  const specHash = hashSpec(spec)
  const stored = await connection.store.put(canonicalSpecBytes(spec))
  if (stored !== specHash) throw new UnexpectedChainValueError(`spec stored under ${stored}, expected ${specHash}`)
  const transaction = await sendMarketTransaction(connection, 'submitTask', [specHash, workUnits, maxSteps, maxPrice, parentId], escrow)
  const [submitted] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'TaskSubmitted'})
  if (!submitted) throw new MissingEventError('submitTask mined without a TaskSubmitted event')
  return {taskId: submitted.args.id, specHash, escrow, workUnits, maxSteps, maxPrice, parentId, transaction}
}
