import type {PublicClient} from 'viem'

import type {IntervalMining} from '../chain/intervalMining.js'
import {BaseError, InvalidInputError} from '../errors/base.js'
import type {PersistedDevnet} from './devnetState.js'

/**
 * Picks a chain loaded from `--state FILE` back up: checks it is the devnet the record describes, then restarts
 * its clock at the last block and mines on the interval again. anvil stamps new blocks with the wall clock, so
 * without `evm_setTime` the first block would jump by however long the devnet was down, and every claimed task
 * would miss its training deadline (deadlines are judged by chain time).
 */
export async function resumeChain(publicClient: PublicClient, saved: PersistedDevnet, mining: Pick<IntervalMining, 'start'>, file: string): Promise<{head: bigint; timestamp: bigint}> {
  const chainId = await publicClient.getChainId()
  if (chainId !== saved.chainId) throw new InvalidInputError(`--state: ${file} holds chain ${chainId}, expected ${saved.chainId}`)
  const code = await publicClient.getCode({address: saved.contracts.market})
  if (!code || code === '0x') throw new InvalidInputError(`--state: ${file} has no TaskMarket at ${saved.contracts.market}: expected the chain of the run that wrote it`)
  const head = await publicClient.getBlock({blockTag: 'latest'})
  try {
    await publicClient.request({method: 'evm_setTime', params: [Number(head.timestamp) + 1]} as never)
    await mining.start()
  } catch (error) {
    throw new BaseError('devnet resume: anvil refused to restore the clock and interval mining', {cause: error})
  }
  return {head: head.number, timestamp: head.timestamp}
}
