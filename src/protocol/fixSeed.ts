import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type FixSeedParameters = {taskId: bigint}

export type FixSeedReturnType = TransactionResult

export type FixSeedErrorType = TransactionErrorType

/**
 * Records the forced-error seed `blockhash(claimBlock + 1)` of a claimed task (anyone may) before the EVM forgets
 * it, 256 blocks on: a solver whose training outlasts that window calls this first, or its commit reverts
 * RandomnessExpired (docs/security.md, finding 2).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function fixSeed(connection: SignedConnection, {taskId}: FixSeedParameters): Promise<FixSeedReturnType> {
  return sendMarketTransaction(connection, 'fixSeed', [taskId])
}
