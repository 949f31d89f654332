import assert from 'node:assert/strict'

import {execa} from 'execa'

import {type Anvil, createAnvil} from '../chain/anvil.js'
import {createClients, type GensynPublicClient} from '../chain/clients.js'
import {createIntervalMining} from '../chain/intervalMining.js'
import {processState} from '../util/processLiveness.js'
import {pauseDevnet} from './pauseDevnet.js'


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('pauseDevnet (real anvil, real child process)', function () {
  this.timeout(60_000)
  let anvil: Anvil
  let publicClient: GensynPublicClient

  before(async () => {
    anvil = createAnvil({accounts: 1})
    await anvil.start()
    ;({publicClient} = await createClients({rpcUrl: anvil.rpcUrl}))
    await publicClient.request({method: 'evm_setIntervalMining', params: [1]} as never)
  })
  after(async () => {
    await anvil.stop()
  })

  it('stops mining and the actors, then continues chain time from the last block', async () => {
    const actor = execa(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {reject: false})
    try {
      await sleep(2500)
      const paused = await pauseDevnet({publicClient, pids: [actor.pid, undefined], mining: createIntervalMining(publicClient, 1)})
      assert.deepEqual(paused.stopped, [actor.pid])
      assert.equal(processState(actor.pid!), 'T')
      // Long enough for a block time of 1 s to have mined several blocks, had mining not stopped.
      await sleep(5000)
      const during = await publicClient.getBlock({blockTag: 'latest'})
      assert.equal(during.number, paused.blockNumber, 'a block was mined during the pause')

      await paused.resume()
      await paused.resume() // twice is harmless
      assert.notEqual(processState(actor.pid!), 'T')
      await sleep(2600)
      const later = await publicClient.getBlock({blockTag: 'latest'})
      assert.ok(later.number >= paused.blockNumber + 2n, `interval mining did not come back: head ${later.number}`)
      const next = await publicClient.getBlock({blockNumber: paused.blockNumber + 1n})
      // Without evm_setTime the first block would be stamped 5 s or more after the last one (the pause).
      const gap = next.timestamp - paused.blockTimestamp
      assert.ok(gap >= 1n && gap <= 3n, `first block after resume is ${gap} s after the last one`)
    } finally {
      actor.kill('SIGKILL')
      await actor
    }
  })

  it('skips processes that already exited', async () => {
    const gone = execa(process.execPath, ['-e', '0'])
    await gone
    const paused = await pauseDevnet({publicClient, pids: [gone.pid], mining: createIntervalMining(publicClient, 1)})
    assert.deepEqual(paused.stopped, [])
    await paused.resume()
  })
})
