import type {Address, Hex, PublicClient} from 'viem'

/** One transaction mined in the scanned range, with what its receipt says it cost. */
export type MinedTransaction = {
  block: bigint
  from: Address
  to: Address | null
  input: Hex
  gasUsed: bigint
  effectiveGasPrice: bigint
}

/**
 * Every transaction mined between two blocks (exclusive, inclusive) with its receipt. The report reads the run's
 * transactions once through this: the conservation check sums its accounts' fees, the history sums gas per phase.
 */
export async function scanTransactions(client: Pick<PublicClient, 'getBlock' | 'getTransactionReceipt'>, fromBlock: bigint, toBlock: bigint): Promise<MinedTransaction[]> {
  const mined: MinedTransaction[] = []
  for (let number = fromBlock + 1n; number <= toBlock; number++) {
    const block = await client.getBlock({blockNumber: number, includeTransactions: true})
    for (const transaction of block.transactions) {
      const {gasUsed, effectiveGasPrice} = await client.getTransactionReceipt({hash: transaction.hash})
      mined.push({block: number, from: transaction.from, to: transaction.to, input: transaction.input, gasUsed, effectiveGasPrice})
    }
  }
  return mined
}
