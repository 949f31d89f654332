import type {PublicClient} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {sendContractTransaction, type TransactionResult} from './sendContractTransaction.js'
import {withCurrentTaskState} from './taskState.js'

/** The longest a stale call waits for the block that carries the other transaction before it is built again. */
const NEW_HEAD_WAIT_MS = 30_000

/**
 * Sends one TaskMarket call: the shared body of the market's actions. `args` name the task by its id alone: the
 * task's current state (and its parent's, where the call needs it) is read from the chain and put in place
 * (taskState.ts). When another transaction changes the task first (StaleTask: mined in the same block before this
 * one, or waiting in the pool when this one is estimated), the call waits for a block after the state it read and
 * is built again on the new state, so a lost race ends in the market's own error for it (InvalidStatus for a second
 * claim, say), as it would if the state were stored.
 */
export async function sendMarketTransaction(connection: SignedConnection, functionName: string, args: readonly unknown[], value?: bigint): Promise<TransactionResult> {
  const head = () => connection.publicClient.getBlockNumber({cacheTime: 0})
  // The head at or before the state's read: a block after it carries whatever made the state stale.
  let readAt = await head()
  return withCurrentTaskState(
    connection,
    functionName,
    args,
    (withState) => sendContractTransaction(connection, {address: connection.contracts.market, abi: taskMarketAbi, functionName, args: withState, ...(value === undefined ? {} : {value})}),
    async () => {
      await blockAfter(connection.publicClient, readAt)
      readAt = await head()
    },
  )
}

/** Resolves once the chain's head is past `block` (or after NEW_HEAD_WAIT_MS: the caller then tries anyway). */
async function blockAfter(client: PublicClient, block: bigint): Promise<void> {
  const deadline = Date.now() + NEW_HEAD_WAIT_MS
  while ((await client.getBlockNumber({cacheTime: 0})) <= block && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, client.pollingInterval))
  }
}
