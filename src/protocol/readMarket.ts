import type {ContractFunctionName, ContractFunctionReturnType} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {ContractRevertError, toProtocolError} from './errors.js'
import {chainStates, withTaskState} from './taskState.js'

type MarketView = ContractFunctionName<typeof taskMarketAbi, 'view' | 'pure'>

/** Reads of a view that met a state another transaction had just replaced (StaleTask) before giving up. */
const STALE_RETRIES = 3

/**
 * Calls one of the TaskMarket's views with `args` naming a task by its id alone: the task's current state is read
 * from the chain and put in place, as sendMarketTransaction does for transactions (taskState.ts); a transaction
 * that changes the task in between (StaleTask) makes it read the state again.
 */
export async function readMarket<fn extends MarketView>(
  connection: Pick<Connection, 'publicClient' | 'contracts'> & Partial<Pick<Connection, 'deployBlock'>>,
  functionName: fn,
  args: readonly unknown[],
): Promise<ContractFunctionReturnType<typeof taskMarketAbi, 'view' | 'pure', fn>> {
  const states = chainStates({client: connection.publicClient, market: connection.contracts.market, fromBlock: connection.deployBlock})
  for (let attempt = 1; ; attempt++) {
    const withState = await withTaskState(states, functionName, args)
    try {
      return (await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName, args: withState} as never)) as never
    } catch (error) {
      const reverted = toProtocolError(functionName, error)
      if (!(reverted instanceof ContractRevertError && reverted.errorName === 'StaleTask') || attempt >= STALE_RETRIES) throw error
    }
  }
}
