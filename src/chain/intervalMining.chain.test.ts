import assert from 'node:assert/strict'

import {createPublicClient, http, type PublicClient} from 'viem'

import {type Anvil, createAnvil} from './anvil.js'
import {createIntervalMining} from './intervalMining.js'
import {waitForReceipt} from './waitForReceipt.js'

describe('createIntervalMining (on anvil)', function () {
  this.timeout(60_000)
  let anvil: Anvil
  let client: PublicClient

  before(async () => {
    anvil = createAnvil()
    await anvil.start()
    client = createPublicClient({transport: http(anvil.rpcUrl)}) as PublicClient
  })
  after(() => anvil.stop())

  const head = () => client.getBlockNumber({cacheTime: 0})

  async function untilHead(target: bigint): Promise<void> {
    for (let tries = 0; tries < 400 && (await head()) < target; tries++) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.ok((await head()) >= target, `the chain never reached block ${target}`)
  }

  /** After a stop: two reads far enough apart for several blocks, and the head has not moved. */
  async function assertStill(seconds: number): Promise<void> {
    const from = await head()
    await new Promise((resolve) => setTimeout(resolve, seconds * 2500))
    assert.equal(await head(), from, 'a block was mined after stop()')
  }

  it('mines sub-second blocks stamped with the wall clock (several to a second), stops, and starts again', async () => {
    const mining = createIntervalMining(client, 0.2)
    const wallStart = Math.floor(Date.now() / 1000)
    const from = await head()
    await mining.start()
    await untilHead(from + 6n)
    await mining.stop()
    const first = await client.getBlock({blockNumber: from + 1n})
    const last = await client.getBlock({blockNumber: from + 6n})
    // Six blocks in well under six seconds: timestamps follow the clock, not one second per block.
    assert.ok(last.timestamp - first.timestamp < 5n, `6 blocks spanned ${last.timestamp - first.timestamp} s of chain time`)
    assert.ok(first.timestamp >= BigInt(wallStart) - 1n)
    await assertStill(0.2)
    const stoppedAt = await head()
    await mining.start()
    await mining.start() // a second start does not add a second timer
    await untilHead(stoppedAt + 2n)
    await mining.stop()
    await assertStill(0.2)
  })

  it('turns automine off: a transaction waits for the next block the timer mines', async () => {
    const mining = createIntervalMining(client, 0.5)
    await mining.start()
    await mining.stop()
    const [from] = (await client.request({method: 'eth_accounts'} as never)) as `0x${string}`[]
    const hash = (await client.request({method: 'eth_sendTransaction', params: [{from, to: from, value: '0x1'}]} as never)) as `0x${string}`
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(await client.request({method: 'eth_getTransactionReceipt', params: [hash]} as never), null, 'mined on send: automine is still on')
    await mining.start()
    const receipt = await waitForReceipt(client, {hash, pollingInterval: 50, timeout: 30_000})
    await mining.stop()
    assert.equal(receipt.status, 'success')
  })

  it('whole seconds use anvil\'s own interval mining, and stop turns it off', async () => {
    const mining = createIntervalMining(client, 1)
    const from = await head()
    await mining.start()
    await untilHead(from + 2n)
    await mining.stop()
    await assertStill(1)
  })
})
