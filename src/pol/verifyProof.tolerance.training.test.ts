import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {prngStream} from '../ml/prng/prngStream.js'
import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {tinyCnnLayers, tinySpec} from '../ml/train/testSpecs.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {ThresholdsError} from './distances/errors.js'
import {nonFiniteDistance} from './distances/parameterDistances.js'
import type {Thresholds} from './distances/thresholds.js'
import {merkleRoot} from '../ml/checkpoint/merkle.js'
import {profileJob} from './profile/profileJob.js'
import {verifyProof} from './verifyProof.js'

const randomness: Hex = `0x${'cd'.repeat(32)}`
/** The same job with another training seed: thresholds are profiled on a trajectory the verified proof does not share. */
const reseeded = (spec: JobSpec): JobSpec => ({...spec, training: {...spec.training, seed: spec.training.seed + 1}})

describe('verifyProof: tolerance mode (a cpu-trained proof replayed on wasm)', () => {
  let dir: string
  let store: BlobStore
  let spec: JobSpec
  let honest: TrainResult
  let thresholds: Thresholds

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-tolerance-'))
    store = createLocalStore(dir, {fsync: false})
    spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    honest = await trainJob({spec, store, backend: 'cpu'})
    thresholds = (await profileJob({spec: reseeded(spec), runtimes: ['cpu', 'wasm'], segments: 2})).thresholds
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('cannot verify it on wasm in exact mode (inconclusive), accepts it in tolerance mode with profiled thresholds', async () => {
    const exact = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'wasm'})
    assert.equal(exact.inconclusive, true)
    assert.equal(exact.mode, 'exact')
    const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [0, 1, 2, 3]})
    assert.equal(report.accepted, true, report.reason)
    assert.equal(report.mode, 'tolerance')
    assert.deepEqual(report.thresholds, thresholds)
    assert.equal(report.runtime?.backend, 'wasm')
    assert.equal(report.checks.runtime, 'pass')
    assert.equal(report.segments.length, 4)
    for (const s of report.segments) {
      assert.equal(s.mode, 'tolerance')
      assert.equal(s.hashMatch, false, 'wasm does not reproduce cpu bit for bit')
      assert.equal(s.match, true)
      assert.deepEqual(s.violations, [])
      assert.ok(s.distances.whole.l2 > 0 && s.distances.whole.l2 <= (thresholds.l2 ?? 0))
    }
    // on the proof's own runtime the replay is bit-identical, in either mode
    const onCpu = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'cpu', mode: 'tolerance', thresholds})
    assert.equal(onCpu.accepted, true, onCpu.reason)
    assert.ok(onCpu.segments.every((s) => s.hashMatch && s.distances.whole.l2 === 0))
  })

  it('rejects a noised checkpoint when its segment is sampled, and says which distances exceeded', async () => {
    // a lazy solver: instead of training 50..100 it perturbs the step-100 state (uniform noise, ±1e-3), then continues honestly
    const cp = decodeCheckpoint(await store.get(honest.checkpoints[2]?.hash as Hex))
    const noise = prngStream('test noise')
    for (const w of cp.weights) for (let i = 0; i < w.values.length; i++) w.values[i] = (w.values[i] as number) + (2 * noise.nextUnit() - 1) * 1e-3
    const tampered = await store.put(encodeCheckpoint(cp))
    const forged = await trainJob({spec, store, backend: 'cpu', resume: {step: 100, hash: tampered, checkpoints: [...honest.checkpoints.slice(0, 2), {step: 100, hash: tampered}]}})
    const caught = await verifyProof({spec, store, manifestHash: forged.manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [1]})
    assert.equal(caught.accepted, false)
    assert.equal(caught.inconclusive, false)
    assert.equal(caught.checks.replay, 'fail')
    assert.match(caught.reason ?? '', /^segment 1 \(steps 50-100\): the replay on wasm\(simd\) [^:]+: whole l1 [\d.e+-]+ > [\d.e+-]+; whole l2 /)
    const violations = caught.segments[0]?.violations ?? []
    assert.ok(violations.some((v) => v.startsWith('0/dense/kernel linf ')), violations.join('; '))
    // the segments after the tampering are self-consistent: only sampling segment 1 catches it
    const missed = await verifyProof({spec, store, manifestHash: forged.manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [2, 3]})
    assert.equal(missed.accepted, true, missed.reason)
  })

  it('checks the optimizer state too: a doctored adam moment is caught with the weights untouched', async () => {
    const cp = decodeCheckpoint(await store.get(honest.checkpoints[2]?.hash as Hex))
    assert.equal(cp.optimizer.type, 'adam')
    if (cp.optimizer.type !== 'adam') return
    const m = cp.optimizer.m[0]?.values as Float32Array
    for (let i = 0; i < m.length; i++) m[i] = (m[i] as number) * 1.5
    const doctored = await store.put(encodeCheckpoint(cp))
    const checkpoints = honest.checkpoints.map((c) => (c.step === 100 ? {step: 100, hash: doctored} : c))
    const manifestHash = await store.putJson({...honest.manifest, checkpoints, merkleRoot: merkleRoot(checkpoints.map((c) => c.hash))})
    const report = await verifyProof({spec, store, manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [1]})
    assert.equal(report.accepted, false)
    assert.ok((report.segments[0]?.distances.whole.l2 ?? 1) <= (thresholds.l2 ?? 0), 'the weights alone pass')
    assert.ok((report.segments[0]?.violations ?? []).every((v) => v.startsWith('m/0/dense/kernel ')), report.reason)
    assert.match(report.reason ?? '', /beyond the thresholds and 2 x its spread to cpu: m\/0\/dense\/kernel l1 /)
  })

  it('keeps reports JSON-safe when a committed checkpoint holds NaN', async () => {
    const cp = decodeCheckpoint(await store.get(honest.checkpoints[4]?.hash as Hex))
    ;(cp.weights[1]?.values as Float32Array)[0] = Number.NaN
    const checkpoints = [...honest.checkpoints.slice(0, 4), {step: 200, hash: await store.put(encodeCheckpoint(cp))}]
    const manifestHash = await store.putJson({...honest.manifest, checkpoints, merkleRoot: merkleRoot(checkpoints.map((c) => c.hash))})
    const report = await verifyProof({spec, store, manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, sampling: {strategy: 'top-q'}})
    assert.equal(report.accepted, false)
    assert.deepEqual(report.selectedSegments, [0, 3])
    assert.equal(report.updateNorms?.[3], Number.MAX_VALUE, 'a NaN update is reported as the largest finite number')
    assert.equal(report.segments[1]?.distances.whole.l2, nonFiniteDistance)
    assert.ok(report.segments[1]?.violations?.some((v) => /^0\/dense\/bias l1 non-finite > /.test(v)), report.reason)
    assert.equal(report.segments[1]?.distances.perTensor[0]?.l2 !== nonFiniteDistance, true, 'the other tensors keep their real distances')
    // the verifier stores its report as canonical JSON, which refuses NaN and Infinity
    assert.match(await store.putJson(report), /^0x[0-9a-f]{64}$/)
  })

  it('needs thresholds that cover every tensor (bad input)', async () => {
    await assert.rejects(verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, mode: 'tolerance'}), (error: unknown) => {
      assert.ok(error instanceof ThresholdsError)
      assert.equal(error.exitCode, 2)
      assert.equal(error.shortMessage, 'thresholds: expected distance limits for tolerance mode, got none')
      return true
    })
    await assert.rejects(
      verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, mode: 'tolerance', thresholds: {l2: 1e-3}}),
      /expected limits for the optimizer tensor m\/0\/dense\/kernel/,
    )
  })
})

describe('verifyProof: tolerance mode on a small CNN', () => {
  it('accepts a cpu-trained CNN proof replayed on wasm with profiled thresholds, and rejects a noised one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gensyn-tolerance-cnn-'))
    try {
      const store = createLocalStore(dir, {fsync: false})
      const spec = tinySpec({inputShape: '[28, 28, 1]', layers: tinyCnnLayers, steps: 40, interval: 20})
      const honest = await trainJob({spec, store, backend: 'cpu'})
      const profile = await profileJob({spec: reseeded(spec), runtimes: ['cpu', 'wasm']})
      assert.ok(profile.samples.some((s) => !s.exact && s.distances.whole.l2 > 0), 'cpu and wasm differ on the CNN')
      const {thresholds} = profile
      const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds, segments: [0, 1]})
      assert.equal(report.accepted, true, report.reason)
      assert.ok(report.segments.every((s) => !s.hashMatch && s.match))
      // noise on the final checkpoint (the one always sampled): ±1e-4 on the conv kernel only
      const cp = decodeCheckpoint(await store.get(honest.checkpoints[2]?.hash as Hex))
      const kernel = cp.weights[0]?.values as Float32Array
      const noise = prngStream('test cnn noise')
      for (let i = 0; i < kernel.length; i++) kernel[i] = (kernel[i] as number) + (2 * noise.nextUnit() - 1) * 1e-4
      const checkpoints = [...honest.checkpoints.slice(0, 2), {step: 40, hash: await store.put(encodeCheckpoint(cp))}]
      const manifestHash = await store.putJson({...honest.manifest, checkpoints, merkleRoot: merkleRoot(checkpoints.map((c) => c.hash))})
      const caught = await verifyProof({spec, store, manifestHash, randomness, backend: 'wasm', mode: 'tolerance', thresholds})
      assert.equal(caught.accepted, false)
      assert.deepEqual(caught.selectedSegments, [0, 1])
      // beyond the thresholds, so the segment was replayed on cpu too: the honest cpu end is where the noise started
      // from, and the noise is far beyond twice the honest runtimes' distance
      assert.match(caught.reason ?? '', /^segment 1 \(steps 20-40\): the replay on wasm\(simd\) .* is beyond the thresholds and 2 x its spread to cpu: whole l1 /)
      assert.deepEqual(caught.segments[1]?.beyondThresholds, caught.segments[1]?.violations)
      const violations = caught.segments[1]?.violations ?? []
      assert.ok(violations.some((v) => v.startsWith('0/conv2d/kernel l2 ')), violations.join('; '))
      assert.ok(!violations.some((v) => v.startsWith('3/dense/kernel')), 'the untouched dense kernel stays within its limits')
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
