import assert from 'node:assert/strict'
import {randomBytes} from 'node:crypto'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {type Hex, toHex} from 'viem'

import {forcedErrorProof} from '../adversary/forcedError.js'
import type {RuntimeId} from '../ml/backend/index.js'
import {type JobSpec, loadJobSpec, specHash} from '../ml/spec/index.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import type {ProofManifest} from '../pol/index.js'
import {profileJob} from '../pol/profile/profileJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {recheckTask} from './recheckTask.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

describe('recheckTask with tolerance: a whistleblower re-checks a proof from a runtime it lacks (real training, no chain)', function () {
  this.timeout(600_000)
  let dir: string
  let store: BlobStore
  let spec: JobSpec
  let honest: TrainResult
  /**
   * Test double for a GPU host this machine lacks: the proofs below are real cpu runs of this machine, relabelled
   * as made on the cpu backend of another Node version (whose Math.exp and log may round differently), so no
   * exact replay of them is possible here, as none is of a GPU's proof without that GPU. The thresholds pinned
   * for it are a real cpu-against-wasm profile of the job, relabelled the same way.
   */
  let elsewhere: RuntimeId

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-recheck-'))
    store = createLocalStore(dir)
    const base = await loadJobSpec(path.join(root, 'fixtures/jobs/smoke-mlp.yaml'))
    const profile = await profileJob({spec: {...base, training: {...base.training, seed: base.training.seed + 1000}}, runtimes: ['cpu', 'wasm'], seeds: 2})
    const cpu = profile.runtimes.find((runtime) => runtime.backend === 'cpu')!
    elsewhere = {...cpu, node: '99.0.0'}
    const relabelled = {...profile, runtimes: profile.runtimes.map((runtime) => (runtime.backend === 'cpu' ? elsewhere : runtime))}
    spec = {...base, verification: {...base.verification, profiles: [await store.putJson(relabelled)]}}
    honest = await trainJob({spec, store, backend: 'cpu'})
  })
  after(() => rm(dir, {recursive: true, force: true}))

  /** A task as recheckTask reads it: the spec and the proof's manifest (with the runtime it names) in the store. */
  async function taskOf(jobSpec: JobSpec, manifest: ProofManifest): Promise<{id: bigint; specHash: Hex; manifestHash: Hex}> {
    await store.putJson(jobSpec)
    return {id: 1n, specHash: specHash(jobSpec), manifestHash: await store.putJson({...manifest, runtime: elsewhere})}
  }

  it('skips such a proof without tolerance: it cannot replay it bit for bit', async () => {
    const result = await recheckTask({store}, await taskOf(spec, honest.manifest))
    assert.deepEqual(result.checked, [])
    assert.match(result.skipped ?? '', /^cannot replay cpu tfjs@\S+ kernels=\S+ node@99\.0\.0 bit for bit here$/)
  })

  it('skips it with tolerance when the job pins no thresholds for that runtime against wasm, and says so', async () => {
    const unpinned: JobSpec = {...spec, verification: {...spec.verification, profiles: []}}
    const result = await recheckTask({store}, await taskOf(unpinned, honest.manifest), {tolerance: {backend: 'wasm'}})
    assert.equal(result.mismatch, undefined)
    assert.equal(result.checked.length, 0)
    assert.match(result.skipped ?? '', /^the job pins no thresholds for cpu tfjs@\S+ kernels=\S+ node@99\.0\.0 against wasm\(simd\) .*, this re-check's runtime$/)
  })

  it('finds an honest proof within the pinned thresholds on wasm, segment after segment', async () => {
    const segments: boolean[] = []
    const result = await recheckTask({store}, await taskOf(spec, honest.manifest), {tolerance: {backend: 'wasm'}, onSegment: (replay) => segments.push(replay.match && !replay.hashMatch)})
    assert.equal(result.skipped, undefined)
    assert.equal(result.mode, 'tolerance')
    assert.equal(result.mismatch, undefined)
    assert.deepEqual(result.checked, [...Array(honest.manifest.checkpoints.length - 1).keys()])
    // every segment within the thresholds, and none bit for bit: the tolerance rule decided, not a hash
    assert.deepEqual(segments, result.checked.map(() => true))
  })

  it('re-checks a proof made on its own backend bit for bit, with no thresholds needed', async () => {
    const onWasm = await trainJob({spec, store})
    const unpinned: JobSpec = {...spec, verification: {...spec.verification, profiles: []}}
    await store.putJson(unpinned)
    const task = {id: 2n, specHash: specHash(unpinned), manifestHash: onWasm.manifestHash}
    const result = await recheckTask({store}, task, {tolerance: {backend: 'wasm'}})
    assert.equal(result.mode, 'exact')
    assert.equal(result.skipped, undefined)
    assert.equal(result.mismatch, undefined)
    assert.equal(result.checked.length, onWasm.manifest.checkpoints.length - 1)
  })

  it('catches a wrong proof: its first segment is beyond the thresholds, and the claim is its own wasm end', async () => {
    const wrong = await forcedErrorProof({store, honest: honest.manifest, secret: toHex(randomBytes(32))})
    const result = await recheckTask({store}, await taskOf(spec, wrong.manifest), {tolerance: {backend: 'wasm'}})
    assert.equal(result.mode, 'tolerance')
    assert.equal(result.mismatch?.segment, 0)
    assert.equal(result.mismatch.expected, wrong.checkpoints[1]!.hash)
    assert.notEqual(result.mismatch.actual, result.mismatch.expected)
    assert.notEqual(result.mismatch.actual, honest.checkpoints[1]!.hash, 'the claim is the wasm replay, not the cpu proof')
    assert.ok((result.mismatch.violations ?? []).length > 0, 'a tolerance mismatch names the limits it broke')
  })
})
