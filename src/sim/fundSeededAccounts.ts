import {type PublicClient, parseEther, toHex} from 'viem'

import type {DevnetAccount} from './devnetAccounts.js'

/**
 * Gives a seeded run's accounts (keys derived from the seed, so not anvil's genesis accounts) the balance the
 * scenario says every account starts with, as anvil's genesis does for its own.
 */
export async function fundSeededAccounts(publicClient: PublicClient, accounts: readonly DevnetAccount[], etherEach: number): Promise<void> {
  const balance = toHex(parseEther(String(etherEach)))
  for (const {address} of accounts) await publicClient.request({method: 'anvil_setBalance', params: [address, balance]} as never)
}
