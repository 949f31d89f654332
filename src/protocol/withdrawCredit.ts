import {type Address, formatEther} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection, SignedConnection} from './connect.js'
import {type ChainError, type ContractRevertError, toProtocolError, type TransactionErrorType} from './errors.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'
import type {BlockParameter} from './types.js'

export type GetCreditParameters = {account: Address} & BlockParameter

/** Wei credited and not yet withdrawn. */
export type GetCreditReturnType = bigint

export type GetCreditErrorType = ContractRevertError | ChainError

/**
 * Ether the market credited `account` (fees, refunds, a rejection's shortfall) and it has not withdrawn.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function getCredit(connection: Pick<Connection, 'publicClient' | 'contracts'>, {account, blockNumber}: GetCreditParameters): Promise<GetCreditReturnType> {
  try {
    const at = blockNumber === undefined ? {} : {blockNumber}
    return await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'creditOf', args: [account], ...at})
  } catch (error) {
    throw toProtocolError('creditOf', error)
  }
}

export type WithdrawCreditParameters = {
  /** Where the credit goes (default: the signer). */
  to?: Address | undefined
}

export type WithdrawCreditResult = {account: Address; to: Address; amount: bigint; transaction?: TransactionResult | undefined}

export type WithdrawCreditReturnType = WithdrawCreditResult

export type WithdrawCreditErrorType = TransactionErrorType

/**
 * Withdraws the signer's whole market credit to `to` (default: itself). The market pays by credit, never by push
 * (docs/security.md, finding 1), so this is how a solver, verifier or submitter collects. Nothing credited: no
 * transaction, amount 0.
 *
 * @throws {@link TransactionErrorType}: ContractRevertError naming the custom error when the contract reverts, ChainError when the node fails
 */
export async function withdrawCredit(connection: SignedConnection, params: WithdrawCreditParameters = {}): Promise<WithdrawCreditReturnType> {
  const account = connection.account.address
  const to = params.to ?? account
  const amount = await getCredit(connection, {account})
  if (amount === 0n) return {account, to, amount}
  const transaction = await sendContractTransaction(connection, {address: connection.contracts.market, abi: taskMarketAbi, functionName: 'withdraw', args: [to]})
  return {account, to, amount, transaction}
}

export const describeWithdrawal = ({account, to, amount}: WithdrawCreditResult): string =>
  amount === 0n ? `${account}: nothing credited to withdraw` : `withdrew ${formatEther(amount)} ETH of credit from ${account} to ${to}`
