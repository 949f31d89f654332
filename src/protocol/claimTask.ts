import {type Hex, parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {MissingEventError, type TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type ClaimTaskParameters = {
  taskId: bigint
  /** {@link secretHashOf} of the solver's secret: what it commits to for the forced-error coin. */
  secretHash: Hex
}

export type ClaimTaskReturnType = TransactionResult & {claimBlock: bigint; price: bigint}

export type ClaimTaskErrorType = TransactionErrorType | MissingEventError

/**
 * Takes an open task at the SolverBook's price of this block (the signer must have a listed offer with room and
 * an ask at most the price, docs/market.md section 3), locking the solver's stake and committing to the secret
 * behind `secretHash`. Returns the claim's block and the price fixed for this attempt (wei per work unit).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 * @throws {@link MissingEventError} when the receipt has no TaskClaimed event
 */
export async function claimTask(connection: SignedConnection, {taskId, secretHash}: ClaimTaskParameters): Promise<ClaimTaskReturnType> {
  const transaction = await sendMarketTransaction(connection, 'claimTask', [taskId, secretHash])
  const [claimed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'TaskClaimed'})
  if (!claimed) throw new MissingEventError('claimTask mined without a TaskClaimed event')
  return {...transaction, claimBlock: transaction.receipt.blockNumber, price: claimed.args.price}
}
