import {type Chain, type Client, type Hash, type TransactionReceipt, TransactionReceiptNotFoundError, type Transport} from 'viem'
import {getBlockNumber, getTransaction, getTransactionReceipt} from 'viem/actions'

import {ReceiptTimeoutError} from './errors.js'

export type WaitForReceiptParameters = {
  /** The transaction to wait for. */
  hash: Hash
  /** Milliseconds between `eth_getTransactionReceipt` polls. Default: the client's `pollingInterval`. */
  pollingInterval?: number | undefined
  /** Milliseconds before giving up with {@link ReceiptTimeoutError}. Default 180 000 (viem's). */
  timeout?: number | undefined
  /** What the transaction does (e.g. `TaskMarket.settle`), named in the timeout's message. */
  label?: string | undefined
}

export type WaitForReceiptReturnType = TransactionReceipt

export type WaitForReceiptErrorType = ReceiptTimeoutError

/**
 * Waits for a transaction's receipt by polling `eth_getTransactionReceipt` until it exists.
 *
 * Used instead of viem's `waitForTransactionReceipt`, which hangs on a chain that mines only on demand (anvil's
 * automine, every test chain here): it looks for the receipt only when its block-number poller sees a new block,
 * and drops a block that arrives while it is still checking the previous one for a replacement transaction
 * (its `retrying` guard). When the transaction's own block is the one dropped and nothing else is sent, no
 * later block ever comes and it polls `eth_blockNumber` forever. Its pollers are also shared process-wide by
 * client and hash (`observe`), so after `evm_revert` a test that resends the same transaction (same hash) joins
 * the stuck wait. Polling the receipt itself needs no block to arrive and shares nothing. docs/design.md ("Test
 * suite") has the trace that showed it.
 *
 * - JSON-RPC: `eth_getTransactionReceipt` every `pollingInterval`; on timeout, `eth_getTransactionByHash` and
 *   `eth_blockNumber` to say what the node knows.
 *
 * @example
 * const hash = await walletClient.writeContract(request)
 * const receipt = await waitForReceipt(publicClient, {hash, label: 'TaskMarket.claimTask'})
 */
export async function waitForReceipt<transport extends Transport, chain extends Chain | undefined>(
  client: Client<transport, chain>,
  {hash, pollingInterval = client.pollingInterval, timeout = 180_000, label}: WaitForReceiptParameters,
): Promise<WaitForReceiptReturnType> {
  const deadline = Date.now() + timeout
  for (;;) {
    const receipt = await getTransactionReceipt(client, {hash}).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined
      throw error
    })
    if (receipt) return receipt
    if (Date.now() >= deadline) throw new ReceiptTimeoutError({hash, label, timeout, state: await describeTransaction(client, hash)})
    await new Promise((resolve) => setTimeout(resolve, pollingInterval))
  }
}

/** What the node knows of `hash`, and its head: the detail a stuck wait needs. */
async function describeTransaction(client: Client<Transport, Chain | undefined>, hash: Hash): Promise<string> {
  try {
    const [head, transaction] = await Promise.all([
      getBlockNumber(client, {cacheTime: 0}),
      getTransaction(client, {hash}).catch(() => undefined),
    ])
    if (!transaction) return `the node does not know the transaction (dropped, or reverted away); chain head ${head}`
    if (transaction.blockNumber === null) return `the transaction is pending in the node's pool (is the chain mining?); chain head ${head}`
    return `the transaction is in block ${transaction.blockNumber} but the node has no receipt for it; chain head ${head}`
  } catch (error) {
    return `the node did not answer (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`
  }
}
