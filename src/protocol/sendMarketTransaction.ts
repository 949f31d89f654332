import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {ContractRevertError} from './errors.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'
import {chainStates, withTaskState} from './taskState.js'

/** Sends of one call that met a task state another transaction had just replaced (StaleTask) before giving up. */
const STALE_RETRIES = 3

/**
 * Sends one TaskMarket call: the shared body of the market's actions. `args` name the task by its id alone: the
 * task's current state (and its parent's, where the call needs it) is read from the chain and put in place
 * (taskState.ts). When another transaction changes the task between that read and this call's block (StaleTask),
 * the call is built again on the new state, so a lost race ends in the market's own error for it (InvalidStatus,
 * say), as it would if the state were stored.
 */
export async function sendMarketTransaction(connection: SignedConnection, functionName: string, args: readonly unknown[], value?: bigint): Promise<TransactionResult> {
  const states = chainStates({client: connection.publicClient, market: connection.contracts.market, fromBlock: connection.deployBlock})
  for (let attempt = 1; ; attempt++) {
    const withState = await withTaskState(states, functionName, args)
    try {
      return await sendContractTransaction(connection, {address: connection.contracts.market, abi: taskMarketAbi, functionName, args: withState, ...(value === undefined ? {} : {value})})
    } catch (error) {
      if (!(error instanceof ContractRevertError && error.errorName === 'StaleTask') || attempt >= STALE_RETRIES) throw error
    }
  }
}
