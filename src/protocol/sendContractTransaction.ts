import type {Abi, Address, Hash, TransactionReceipt} from 'viem'

import {waitForReceipt} from '../chain/waitForReceipt.js'
import type {SignedConnection} from './connect.js'
import {ChainError, toProtocolError} from './errors.js'

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
    // anvil's estimate leaves the market's inner call to the registry short of gas (the 63/64 rule), so a
    // mined claim runs out of gas; a quarter more covers it.
    const estimate = await connection.publicClient.estimateContractGas({...call, account: connection.account} as never)
    // simulateContract trims the ABI to the one function; keep the errors so a revert on send decodes too.
    const hash = await connection.walletClient.writeContract({...(request as object), abi: call.abi, gas: (estimate * 5n) / 4n} as never)
    const receipt = await waitForReceipt(connection.publicClient, {hash, label: call.functionName})
    if (receipt.status !== 'success') {
      // Another party's transaction in the same block got there first (a lost race). Replaying the call on
      // the state that block left behind names the custom error.
      await connection.publicClient.simulateContract({...call, account: connection.account, blockNumber: receipt.blockNumber} as never)
      throw new ChainError(`${call.functionName} failed: transaction ${hash} reverted on chain`)
    }
    return {hash, receipt, gasUsed: receipt.gasUsed, gasCost: receipt.gasUsed * receipt.effectiveGasPrice}
  } catch (error) {
    throw toProtocolError(call.functionName, error)
  }
}
