import type {SignedConnection} from './connect.js'
import type {TransactionErrorType} from './errors.js'
import type {TransactionResult} from './sendContractTransaction.js'
import {sendMarketTransaction} from './sendMarketTransaction.js'

export type FundJackpotParameters = {
  /** Wei sent with the call. */
  amount: bigint
}

export type FundJackpotReturnType = TransactionResult

export type FundJackpotErrorType = TransactionErrorType

/**
 * Adds ether to the jackpot that pays whoever catches a forced error. Anyone may call it.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export function fundJackpot(connection: SignedConnection, {amount}: FundJackpotParameters): Promise<FundJackpotReturnType> {
  return sendMarketTransaction(connection, 'fundJackpot', [], amount)
}
