import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'

import {averageCheckpoints, decodeCheckpoint, encodeCheckpoint} from '../ml/checkpoint/index.js'
import {type JobSpec, roundTaskSpecs, specHash} from '../ml/spec/index.js'
import {tinySpec} from '../ml/train/testSpecs.js'
import {StartCheckpointError} from '../ml/train/errors.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {finalCheckpointOf} from './finalCheckpointOf.js'
import {replaySegment} from './replaySegment.js'
import {verifyProof} from './verifyProof.js'

// A parallel split (docs/market.md, section 4) end to end without a chain: two shards train round 0 from the seed,
// their mean starts round 1, and a verifier replays each shard task on that shard's data from that start.
describe('parallel split: shard tasks and the round mean', function () {
  this.timeout(120_000)
  let dir: string
  let store: BlobStore
  let job: JobSpec
  let round0: TrainResult[]
  let mean: Hex
  const randomness = `0x${'5a'.repeat(32)}` as Hex

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-shards-'))
    store = createLocalStore(dir, {fsync: false})
    job = {...tinySpec({steps: 40, interval: 10}), split: {tasks: 2, shards: 2}}
    round0 = []
    for (const spec of roundTaskSpecs(job, 0, undefined)) round0.push(await trainJob({spec, store}))
    const finals = await Promise.all(round0.map(async (run) => decodeCheckpoint(await store.get(finalCheckpointOf(run.manifest).hash))))
    mean = await store.put(encodeCheckpoint(averageCheckpoints(finals)))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  it('trains each shard on its own data: same start, different finals, and a shard proof does not replay on the other shard\'s data', async () => {
    const [a, b] = round0
    assert.equal(a!.checkpoints[0]!.hash, b!.checkpoints[0]!.hash, 'both start from the seed-derived state')
    assert.notEqual(finalCheckpointOf(a!.manifest).hash, finalCheckpointOf(b!.manifest).hash)
    const [shard0, shard1] = roundTaskSpecs(job, 0, undefined)
    const own = await verifyProof({spec: shard1!, store, manifestHash: b!.manifestHash, randomness, segments: [0, 1]})
    assert.equal(own.accepted, true, own.reason)
    const onOwnData = await replaySegment({spec: shard1!, store, manifest: b!.manifest, segment: 0})
    const onOtherData = await replaySegment({spec: shard0!, store, manifest: b!.manifest, segment: 0})
    assert.equal(onOwnData.match, true)
    assert.equal(onOtherData.match, false, 'shard 0\'s batches do not give shard 1\'s checkpoint')
  })

  it('starts round 1 from the mean its spec names, and a verifier accepts it', async () => {
    const specs = roundTaskSpecs(job, 1, mean)
    const run = await trainJob({spec: specs[1]!, store})
    assert.equal(run.checkpoints[0]!.hash, mean)
    assert.equal(run.checkpoints[0]!.step, 20)
    const report = await verifyProof({spec: specs[1]!, store, manifestHash: run.manifestHash, randomness, segments: [0, 1]})
    assert.equal(report.accepted, true, report.reason)
    assert.equal(report.checks.initialWeights, 'pass')
  })

  it('rejects a round 1 proof that started from one shard\'s final instead of the mean, and refuses to train from it', async () => {
    const shortcut = finalCheckpointOf(round0[0]!.manifest).hash
    const cheat = await trainJob({spec: roundTaskSpecs(job, 1, shortcut)[0]!, store})
    const honestSpec = roundTaskSpecs(job, 1, mean)[0]!
    // The cheat commits its proof for the task it claimed: the manifest names the honest spec.
    const claimed = await store.putJson({...cheat.manifest, specHash: specHash(honestSpec)})
    const report = await verifyProof({spec: honestSpec, store, manifestHash: claimed, randomness, segments: [0]})
    assert.equal(report.accepted, false)
    assert.equal(report.checks.initialWeights, 'fail')
    assert.match(report.reason ?? '', new RegExp(`expected the averaged checkpoint the spec names \\(split.start ${mean}\\), got ${shortcut}`))
    await assert.rejects(trainJob({spec: honestSpec, store, start: {hash: shortcut}}), (error: unknown) => error instanceof StartCheckpointError && error.shortMessage.includes(`split.start ${mean}`))
  })
})
