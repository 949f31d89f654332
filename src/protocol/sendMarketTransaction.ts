import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'

/** Sends one TaskMarket call: the shared body of the market's actions. */
export function sendMarketTransaction(connection: SignedConnection, functionName: string, args: readonly unknown[], value?: bigint): Promise<TransactionResult> {
  return sendContractTransaction(connection, {address: connection.contracts.market, abi: taskMarketAbi, functionName, args, ...(value === undefined ? {} : {value})})
}
