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
import {splitTaskSpecs} from '../spec/splitTaskSpecs.js'
import {stopRuleProblem} from './stopRule.js'
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

  it('sums-transformer (cut to 20 steps): a character transformer learns, its proof replays bit for bit, the wrong-data cheat fails replay', async () => {
    const full = await loadLocalJob('fixtures/jobs/sums-transformer.yaml')
    const spec = {...full, training: {...full.training, steps: 20, schedule: {warmupSteps: 5, decay: 'cosine' as const, minLearningRate: 0}}, proof: {checkpointInterval: 10}}
    const honest = await trainJob({spec, store})
    const first = await evaluateCheckpoint({spec, checkpoint: await store.get(honest.checkpoints[0]!.hash)})
    const last = await evaluateCheckpoint({spec, checkpoint: await store.get(honest.checkpoints.at(-1)!.hash)})
    // per token: 13 characters, so a uniform guess is log(13) = 2.56 nats
    assert.ok(first.testLoss > 2.3 && last.testLoss < first.testLoss - 0.3, `test loss ${first.testLoss} -> ${last.testLoss}`)
    assert.ok(last.testAccuracy > first.testAccuracy)
    const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, segments: [0, 1]})
    assert.equal(report.accepted, true, report.reason)
    const cheated = await cheat({strategy: 'wrong-data', spec, store})
    const caught = await verifyProof({spec, store, manifestHash: cheated.manifestHash, randomness, segments: [0]})
    assert.equal(caught.checks.replay, 'fail')
  })

  it('weather-csv split into 4 stacked tasks trains to the unsplit job\'s final checkpoint bit for bit', async () => {
    const whole = await loadLocalJob('fixtures/jobs/weather-csv.yaml')
    const unsplit = await trainJob({spec: whole, store})
    // 400 steps, a checkpoint every 100: 4 tasks of 100 steps
    let start: Hex | undefined
    for (const task of splitTaskSpecs({...whole, split: {tasks: 4}})) start = (await trainJob({spec: task, store, start: start === undefined ? undefined : {hash: start}})).checkpoints.at(-1)!.hash
    assert.equal(start, unsplit.checkpoints.at(-1)!.hash)
  })

  it('penguins-parquet: training.stopAt.testLoss stops a regression at the first checkpoint at or below the target, and the verifier checks it', async () => {
    const spec = await loadLocalJob('fixtures/jobs/penguins-parquet.yaml')
    const losses: number[] = []
    const full = await trainJob({spec: {...spec, training: {...spec.training, stopAt: {testLoss: 1e-9}}}, store})
    for (const measured of full.accuracies) losses.push(measured.testLoss as number)
    assert.equal(losses.length, 3, 'checkpoints 100, 200 and 300 are scored')
    // this small net is best after 100 steps (later it overfits): stop there
    const target = losses[0]!
    assert.ok(losses.slice(1).every((loss) => loss > target), `losses ${losses}`)
    const stopping = {...spec, training: {...spec.training, stopAt: {testLoss: target}}}
    const stopped = await trainJob({spec: stopping, store})
    assert.equal(stopped.checkpoints.at(-1)!.step, 100)
    assert.equal(stopped.stoppedEarly, true)
    const report = await verifyProof({spec: stopping, store, manifestHash: stopped.manifestHash, randomness})
    assert.equal(report.accepted, true, report.reason)
    // a proof that trained on past the checkpoint that reached the target breaks the stop rule
    assert.match(
      stopRuleProblem({spec: stopping, accuracies: full.accuracies, totalSteps: 300, maxSteps: 300}) ?? '',
      /^stop rule: checkpoint at step 100 reaches test loss [0-9.]+ <= training\.stopAt\.testLoss [0-9.]+, so the task had to stop there$/,
    )
  })
})
