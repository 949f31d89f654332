import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type RenewRandomnessParameters = {taskId: bigint}

export type RenewRandomnessReturnType = TransactionResult

export type RenewRandomnessErrorType = TransactionErrorType

/**
 * Re-anchors the verification randomness of a committed task nobody claimed while `blockhash(commitBlock + 1)`
 * was readable: the draw becomes the hash of the block after this transaction's (docs/security.md, finding 2).
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function renewRandomness(connection: SignedConnection, {taskId}: RenewRandomnessParameters): Promise<RenewRandomnessReturnType> {
  return sendMarketTransaction(connection, 'renewRandomness', [taskId])
}
