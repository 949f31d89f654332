import type {Address} from 'viem'

import type {Connection} from './connect.js'
import {getStake} from './ensureRegistered.js'
import type {ChainError, ContractRevertError} from './errors.js'
import type {BlockParameter} from './types.js'
import {getCredit} from './withdrawCredit.js'

/** An account's money at one block: its wallet, what the market credits it (not yet withdrawn), its whole stake. */
export type AccountMoney = {wallet: bigint; credit: bigint; stake: bigint}

export type GetAccountMoneyParameters = {address: Address} & BlockParameter

export type GetAccountMoneyReturnType = AccountMoney

export type GetAccountMoneyErrorType = ContractRevertError | ChainError

/**
 * Wallet, market credit and stake (free + locked + unbonding) of `address` at `blockNumber` (default: the head).
 * The market pays by credit (docs/security.md, finding 1), so a balance that leaves the credit out would show a
 * paid solver as unpaid until it withdraws.
 *
 * @throws {@link ChainError} when the node fails, {@link ContractRevertError} when the read reverts
 */
export async function getAccountMoney(connection: Pick<Connection, 'publicClient' | 'contracts'>, {address, blockNumber}: GetAccountMoneyParameters): Promise<GetAccountMoneyReturnType> {
  const at = blockNumber === undefined ? {} : {blockNumber}
  const [wallet, credit, stake] = await Promise.all([
    connection.publicClient.getBalance({address, ...at}),
    getCredit(connection, {account: address, blockNumber}),
    getStake(connection, {address, blockNumber}),
  ])
  return {wallet, credit, stake: stake.free + stake.locked + stake.unbonding}
}
