import type {ContractFunctionName, ContractFunctionReturnType} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from './connect.js'
import {withCurrentTaskState} from './taskState.js'

type MarketView = ContractFunctionName<typeof taskMarketAbi, 'view' | 'pure'>

/**
 * Calls one of the TaskMarket's views with `args` naming a task by its id alone: the task's current state is read
 * from the chain and put in place, as sendMarketTransaction does for transactions (taskState.ts); a transaction
 * that changes the task in between (StaleTask) makes it read the state again.
 */
export function readMarket<fn extends MarketView>(
  connection: Pick<Connection, 'publicClient' | 'contracts'> & Partial<Pick<Connection, 'deployBlock'>>,
  functionName: fn,
  args: readonly unknown[],
): Promise<ContractFunctionReturnType<typeof taskMarketAbi, 'view' | 'pure', fn>> {
  return withCurrentTaskState(connection, functionName, args, async (withState) =>
    connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName, args: withState} as never) as never,
  )
}
