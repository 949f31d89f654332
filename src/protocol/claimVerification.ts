import {type Hex, parseEventLogs} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {MissingEventError, type TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type ClaimVerificationParameters = {taskId: bigint}

export type ClaimVerificationReturnType = TransactionResult & {randomness: Hex}

export type ClaimVerificationErrorType = TransactionErrorType | MissingEventError

/**
 * Locks the verifier's stake and reveals the randomness (from a block after the commit) that picks segments.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 * @throws {@link MissingEventError} when the receipt has no VerificationClaimed event
 */
export async function claimVerification(connection: SignedConnection, {taskId}: ClaimVerificationParameters): Promise<ClaimVerificationReturnType> {
  const transaction = await sendMarketTransaction(connection, 'claimVerification', [taskId])
  const [claimed] = parseEventLogs({abi: taskMarketAbi, logs: transaction.receipt.logs, eventName: 'VerificationClaimed'})
  if (!claimed) throw new MissingEventError('claimVerification mined without a VerificationClaimed event')
  return {...transaction, randomness: claimed.args.randomness}
}
