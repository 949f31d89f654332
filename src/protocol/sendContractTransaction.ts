import type {Abi, Address, Hash, TransactionReceipt} from 'viem'

import type {SignedConnection} from './connect.js'
import {toProtocolError} from './errors.js'

export type ContractCall = {
  address: Address
  abi: Abi
  functionName: string
  args?: readonly unknown[]
  value?: bigint
}

export type TransactionResult = {hash: Hash; receipt: TransactionReceipt; gasUsed: bigint; gasCost: bigint}

/**
 * Simulates first so that a revert surfaces as its custom error (one line, named), then sends and waits for
 * the receipt. A mined-but-reverted transaction is an error too.
 */
export async function sendContractTransaction(connection: SignedConnection, call: ContractCall): Promise<TransactionResult> {
  try {
    const {request} = await connection.publicClient.simulateContract({...call, account: connection.account} as never)
    const hash = await connection.walletClient.writeContract(request as never)
    const receipt = await connection.publicClient.waitForTransactionReceipt({hash, pollingInterval: 100})
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted on chain`)
    return {hash, receipt, gasUsed: receipt.gasUsed, gasCost: receipt.gasUsed * receipt.effectiveGasPrice}
  } catch (error) {
    throw toProtocolError(call.functionName, error)
  }
}
