import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Hex} from 'viem'

import {cheat} from '../adversary/cheat.js'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {requireWebgpu} from '../ml/backend/webgpu/requireWebgpu.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import type {Thresholds} from './distances/thresholds.js'
import {profileJob} from './profile/profileJob.js'
import {verifyProof} from './verifyProof.js'

const randomness: Hex = `0x${'ab'.repeat(32)}`
const reseeded = (spec: JobSpec): JobSpec => ({...spec, training: {...spec.training, seed: spec.training.seed + 1}})

describe('verifyProof: a webgpu-trained proof replayed on wasm (tolerance mode)', () => {
  let dir: string
  let store: BlobStore
  let spec: JobSpec
  let honest: TrainResult
  let thresholds: Thresholds

  before(async function () {
    await requireWebgpu(this)
    dir = await mkdtemp(join(tmpdir(), 'gensyn-webgpu-'))
    store = createLocalStore(dir, {fsync: false})
    spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    honest = await trainJob({spec, store, backend: 'webgpu'})
    // profiled on another seed: the thresholds must not be fitted to the trajectory they judge
    thresholds = (await profileJob({spec: reseeded(spec), runtimes: ['webgpu', 'wasm'], segments: 4})).thresholds
    await selectBackend('wasm')
  })
  after(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('is repeatable on webgpu: a second training commits the same Merkle root', async () => {
    const again = await trainJob({spec, store, backend: 'webgpu'})
    assert.equal(again.proofRoot, honest.proofRoot)
    assert.equal(again.runtime.backend, 'webgpu')
  })

  it('is accepted in exact mode on the same webgpu adapter: every sampled segment replays bit for bit', async () => {
    const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'webgpu', segments: [0, 3]})
    assert.equal(report.accepted, true, report.reason)
    assert.equal(report.mode, 'exact')
    assert.equal(report.runtime?.backend, 'webgpu')
    for (const segment of report.segments) assert.equal(segment.hashMatch, true)
    await selectBackend('wasm')
  })

  it('is inconclusive on wasm in exact mode and accepted in tolerance mode, though no segment replays bit for bit', async () => {
    const exact = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'wasm'})
    assert.equal(exact.inconclusive, true)
    const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [0, 1, 2, 3]})
    assert.equal(report.accepted, true, report.reason)
    assert.equal(report.runtime?.backend, 'wasm')
    assert.ok(thresholds.update !== undefined && thresholds.update > 0, 'the profile derives the scale-free limit too')
    for (const segment of report.segments) {
      assert.equal(segment.hashMatch, false, 'webgpu and wasm differ in the last bits')
      assert.ok(segment.distances.whole.linf > 0 && segment.distances.whole.linf <= (thresholds.linf ?? 0))
      assert.ok(segment.distances.update !== undefined && segment.distances.update > 0 && segment.distances.update <= thresholds.update)
    }
  })

  it('rejects a skip-steps cheat trained on webgpu', async () => {
    const cheated = await cheat({strategy: 'skip-steps', spec, store, backend: 'webgpu'})
    const report = await verifyProof({spec, store, manifestHash: cheated.manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [0, 1, 2, 3]})
    assert.equal(report.accepted, false)
    assert.equal(report.inconclusive, false)
    assert.ok(report.segments.some((segment) => !segment.match && (segment.violations ?? []).length > 0))
  })
})
