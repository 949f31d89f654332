import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Hex} from 'viem'

import {cheat} from '../../adversary/cheat.js'
import {verifyProof} from '../../pol/verifyProof.js'
import {createLocalStore} from '../../store/createLocalStore.js'
import type {BlobStore} from '../../store/types.js'
import {datasetHash} from '../data/datasetHash.js'
import {loadLocalJob} from '../data/loadLocalJob.js'
import {evaluateCheckpoint} from '../evaluate/evaluateCheckpoint.js'
import {trainJob} from './trainJob.js'

const randomness: Hex = `0x${'cd'.repeat(32)}`

describe('training on your own data: learns, proves, replays bit for bit, and a wrong-data cheat is caught', function () {
  this.timeout(120_000)
  let dir: string
  let store: BlobStore
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-own-data-'))
    store = createLocalStore(dir, {fsync: false})
  })
  after(() => rm(dir, {recursive: true, force: true}))

  for (const {job, learned} of [
    {job: 'iris-npz', learned: (before: {testAccuracy: number}, after: {testAccuracy: number; testLoss: number}) => after.testAccuracy >= 0.9 && after.testAccuracy > before.testAccuracy},
    {job: 'penguins-parquet', learned: (before: {testLoss: number}, after: {testAccuracy: number; testLoss: number}) => Number.isNaN(after.testAccuracy) && after.testLoss < before.testLoss / 2},
  ]) {
    it(`${job}: the proof names the data set's hash, an exact replay accepts it, the wrong-data cheat's proof fails replay`, async () => {
      const spec = await loadLocalJob(`fixtures/jobs/${job}.yaml`)
      const honest = await trainJob({spec, store})
      assert.equal(honest.manifest.datasetHash, datasetHash(spec))
      assert.equal(honest.manifest.datasetHash, 'source' in spec.dataset ? spec.dataset.data : undefined)
      const first = await evaluateCheckpoint({spec, checkpoint: await store.get(honest.checkpoints[0]!.hash)})
      const last = await evaluateCheckpoint({spec, checkpoint: await store.get(honest.checkpoints.at(-1)!.hash)})
      assert.ok(learned(first, last), `did not learn: ${JSON.stringify({first, last})}`)
      const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness})
      assert.equal(report.accepted, true, report.reason)
      const cheated = await cheat({strategy: 'wrong-data', spec, store})
      const caught = await verifyProof({spec, store, manifestHash: cheated.manifestHash, randomness, segments: [0]})
      assert.equal(caught.accepted, false)
      assert.equal(caught.checks.replay, 'fail')
    })
  }
})
