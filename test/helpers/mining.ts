import {toHex} from 'viem'

import type {SignedConnection} from '../../src/protocol/connect.js'

type Chain = Pick<SignedConnection, 'publicClient'>

/** Mines `blocks` blocks on an anvil (automine leaves the chain still between transactions). */
export function mine(connection: Chain, blocks = 1): Promise<unknown> {
  return connection.publicClient.request({method: 'anvil_mine', params: [toHex(blocks)]} as never)
}

/** Mines a block every `ms` (the devnet automines transactions only): actors wait for blocks after claims and commits. */
export function startMiner(connection: Chain, ms: number): () => Promise<void> {
  let mining = Promise.resolve()
  const timer = setInterval(() => {
    mining = mining.then(() => connection.publicClient.request({method: 'evm_mine'} as never)).then(
      () => undefined,
      () => undefined,
    )
  }, ms)
  return async () => {
    clearInterval(timer)
    await mining
  }
}

/** Mines until the head is at `block` or later: what `commitAndOpen` waits for, on an automining anvil. */
export async function mineTo(connection: Chain, block: bigint): Promise<void> {
  const head = await connection.publicClient.getBlockNumber()
  if (block > head) await mine(connection, Number(block - head))
}
