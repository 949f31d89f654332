import assert from 'node:assert/strict'

import {startFaultyRpc} from '../../test/helpers/faultyRpc.js'
import {type Anvil, createAnvil} from '../chain/anvil.js'
import {createClients} from '../chain/clients.js'
import {QUIET_POLLS, waitForNewHead} from './waitForNewHead.js'

describe('waitForNewHead: a loop reads the market once a block (real anvil behind a recording proxy)', function () {
  this.timeout(30_000)
  let anvil: Anvil
  before(async () => {
    // automine: no block unless a test mines one
    anvil = createAnvil({accounts: 1})
    await anvil.start()
  })
  after(() => anvil.stop())

  /** A connection through a proxy that forwards everything and records it (`methods()`: what it was asked, in order). */
  async function recorded() {
    const proxy = await startFaultyRpc(anvil.rpcUrl, () => ({kind: 'forward'}))
    const methods = () => proxy.seen.map((request) => request.method)
    const {publicClient} = await createClients({rpcUrl: proxy.url, chainId: anvil.chainId})
    const direct = (await createClients({rpcUrl: anvil.rpcUrl, chainId: anvil.chainId})).publicClient
    return {methods, proxy, connection: {publicClient, pollMs: undefined}, head: await direct.getBlockNumber({cacheTime: 0}), direct}
  }

  it('waits on a head that does not move for QUIET_POLLS intervals, reading nothing but the block number', async () => {
    const {methods, proxy, connection, head} = await recorded()
    try {
      const started = performance.now()
      await waitForNewHead(connection, head, {pollMs: 40})
      assert.ok(performance.now() - started >= QUIET_POLLS * 40 - 5, 'it returned before QUIET_POLLS intervals')
      // The last interval ends the wait without a read: the loop's own pass reads the head anyway.
      assert.deepEqual(methods(), Array(QUIET_POLLS - 1).fill('eth_blockNumber'))
    } finally {
      await proxy.close()
    }
  })

  it('returns at the first poll that sees a new block', async () => {
    const {methods, proxy, connection, head, direct} = await recorded()
    try {
      const waiting = waitForNewHead(connection, head, {pollMs: 300})
      // Mine only once the first poll has seen the old head: the second poll must see the new one and return.
      while (methods().length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
      await direct.request({method: 'anvil_mine', params: ['0x1']} as never)
      await waiting
      assert.deepEqual(methods(), ['eth_blockNumber', 'eth_blockNumber'])
    } finally {
      await proxy.close()
    }
  })

  it('returns at the first poll when the head already moved past the one the pass judged by', async () => {
    const {methods, proxy, connection, head, direct} = await recorded()
    try {
      await direct.request({method: 'anvil_mine', params: ['0x1']} as never)
      await waitForNewHead(connection, head, {pollMs: 20})
      assert.deepEqual(methods(), ['eth_blockNumber'])
    } finally {
      await proxy.close()
    }
  })

  it('stops at once, reading nothing, when aborted', async () => {
    const {methods, proxy, connection, head} = await recorded()
    try {
      const abort = new AbortController()
      const waiting = waitForNewHead(connection, head, {pollMs: 10_000, signal: abort.signal})
      abort.abort()
      await waiting
      assert.deepEqual(methods(), [])
    } finally {
      await proxy.close()
    }
  })
})
