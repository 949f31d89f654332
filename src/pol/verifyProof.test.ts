import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Hex} from 'viem'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {specHash} from '../ml/spec/specHash.js'
import {tinyCnnLayers, tinySpec} from '../ml/train/testSpecs.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {createLocalStore} from '../store/createLocalStore.js'
import type {BlobStore} from '../store/types.js'
import {ReplayError} from './errors.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleRoot} from '../ml/checkpoint/merkle.js'
import {replaySegment} from './replaySegment.js'
import {selectSegments} from './selectSegments.js'
import {verifyProof} from './verifyProof.js'

const randomness: Hex = `0x${'ab'.repeat(32)}`

describe('verifyProof', () => {
  let dir: string
  let store: BlobStore
  const spec = tinySpec({steps: 60, interval: 20})
  let honest: TrainResult
  const putManifest = (changes: Partial<ProofManifest>) => store.putJson({...honest.manifest, ...changes})

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-pol-'))
    store = createLocalStore(dir, {fsync: false})
    honest = await trainJob({spec, store})
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('accepts an honest proof, replaying the sampled segments including the last', async () => {
    const seen: number[] = []
    const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, proofRoot: honest.proofRoot, onSegment: (r) => seen.push(r.segment)})
    assert.equal(report.accepted, true, report.reason)
    assert.equal(report.inconclusive, false)
    assert.equal(report.reason, undefined)
    assert.equal(report.mode, 'exact')
    assert.equal(report.thresholds, undefined)
    assert.deepEqual(Object.values(report.checks), ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'])
    assert.equal(report.selectedSegments.length, 2)
    assert.ok(report.selectedSegments.includes(2))
    assert.deepEqual(seen, report.selectedSegments)
    assert.ok(report.segments.every((s) => s.match && s.actual === s.expected))
    const all = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, segments: [0, 1, 2]})
    assert.equal(all.accepted, true, all.reason)
    assert.deepEqual(all.segments.map((s) => [s.startStep, s.endStep]), [[0, 20], [20, 40], [40, 60]])
  })

  it('replays one segment to the committed hash', async () => {
    const replay = await replaySegment({spec, store, manifest: honest.manifest, segment: 1})
    const {distances, ...rest} = replay
    assert.deepEqual(
      {...rest, seconds: 0},
      {segment: 1, startStep: 20, endStep: 40, expected: honest.checkpoints[2]?.hash, actual: honest.checkpoints[2]?.hash, match: true, hashMatch: true, mode: 'exact', runtime: honest.runtime, seconds: 0},
    )
    // distances are reported in exact mode too: zero for a bit-identical replay, one entry per tensor (weights, m, v)
    assert.deepEqual(distances.whole, {l1: 0, l2: 0, linf: 0, cosine: 0})
    const names = ['0/dense/kernel', '0/dense/bias', '1/dense/kernel', '1/dense/bias']
    assert.deepEqual(distances.perTensor.map((t) => t.name), [...names, ...names.map((n) => `m/${n}`), ...names.map((n) => `v/${n}`)])
    assert.ok(distances.perTensor.every((t) => t.l1 === 0 && t.l2 === 0 && t.linf === 0 && t.cosine === 0))
    await assert.rejects(replaySegment({spec, store, manifest: honest.manifest, segment: 3}), ReplayError)
  })

  it('rejects a proof whose checkpoint was tampered with, when that segment is sampled', async () => {
    // a lazy solver: perturbs the step-40 weights instead of training segment 1, then continues honestly
    const cp40 = decodeCheckpoint(await store.get(honest.checkpoints[2]?.hash as Hex))
    const kernel = cp40.weights[0]?.values as Float32Array
    kernel[0] = (kernel[0] as number) + 0.001
    const tampered = await store.put(encodeCheckpoint(cp40))
    const forged = await trainJob({spec, store, resume: {step: 40, hash: tampered, checkpoints: [...honest.checkpoints.slice(0, 2), {step: 40, hash: tampered}]}})
    assert.notEqual(forged.manifestHash, honest.manifestHash)
    const caught = await verifyProof({spec, store, manifestHash: forged.manifestHash, randomness, segments: [1]})
    assert.equal(caught.accepted, false)
    assert.equal(caught.inconclusive, false)
    assert.equal(caught.checks.replay, 'fail')
    assert.equal(caught.checks.initialWeights, 'pass')
    assert.match(caught.reason ?? '', /^segment 1 \(steps 20-40\): replay gives 0x[0-9a-f]{64}, the proof commits 0x[0-9a-f]{64} on wasm\(simd\)/)
    assert.equal(caught.segments[0]?.actual, honest.checkpoints[2]?.hash, 'the replay reproduces the honest state')
    // the segment after the tampering is self-consistent: only sampling the tampered one catches it
    const missed = await verifyProof({spec, store, manifestHash: forged.manifestHash, randomness, segments: [2]})
    assert.equal(missed.accepted, true)
  })

  it('top-q sampling replays the segment with the largest committed update, which uniform sampling can miss', async () => {
    // a spoofer that jumps: the step-40 state is far from where segment 1's training leads
    const cp40 = decodeCheckpoint(await store.get(honest.checkpoints[2]?.hash as Hex))
    const kernel = cp40.weights[0]?.values as Float32Array
    for (let i = 0; i < kernel.length; i++) kernel[i] = (kernel[i] as number) + (i % 2 === 0 ? 0.05 : -0.05)
    const jumped = await store.put(encodeCheckpoint(cp40))
    const forged = await trainJob({spec, store, resume: {step: 40, hash: jumped, checkpoints: [...honest.checkpoints.slice(0, 2), {step: 40, hash: jumped}]}})
    // a randomness for which the uniform plan (final + one other) replays segment 0, not the forged one
    const missing = Array.from({length: 50}, (_, i) => `0x${i.toString(16).padStart(2, '0').repeat(32)}` as Hex).find(
      (r) => selectSegments({randomness: r, segmentCount: 3, count: 2}).join() === '0,2',
    ) as Hex
    const uniform = await verifyProof({spec, store, manifestHash: forged.manifestHash, randomness: missing})
    assert.equal(uniform.accepted, true, 'uniform sampling misses it with this randomness')
    assert.deepEqual(uniform.sampling, {strategy: 'uniform'})
    const topQ = await verifyProof({spec, store, manifestHash: forged.manifestHash, randomness: missing, sampling: {strategy: 'top-q'}})
    assert.deepEqual(topQ.sampling, {strategy: 'top-q', topQ: 1})
    const norms = topQ.updateNorms ?? []
    assert.equal(norms.length, 3)
    assert.ok((norms[1] ?? 0) > (norms[0] ?? 0), `segment 1's update ${norms[1]} is the largest non-final one (segment 0: ${norms[0]})`)
    assert.deepEqual(topQ.selectedSegments, [1, 2])
    assert.equal(topQ.accepted, false)
    assert.match(topQ.reason ?? '', /^segment 1 \(steps 20-40\): replay gives /)
    // the committed update norms are those of the checkpoints: the honest proof's are smaller
    const honestTopQ = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness: missing, sampling: {strategy: 'top-q', topQ: 1}})
    assert.equal(honestTopQ.accepted, true, honestTopQ.reason)
    assert.ok((honestTopQ.updateNorms?.[1] ?? Infinity) < (norms[1] ?? 0))
    await assert.rejects(verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, sampling: {strategy: 'top-q', topQ: 2}}), /sampling\.topQ: expected an integer in \[0, count - 1 = 1\], got 2/)
  })

  it('rejects forged initial weights before replaying anything', async () => {
    const other = await trainJob({spec: tinySpec({steps: 60, interval: 20, seed: 1234}), store})
    const manifestHash = await store.putJson({...other.manifest, specHash: specHash(spec)})
    const report = await verifyProof({spec, store, manifestHash, randomness})
    assert.equal(report.accepted, false)
    assert.equal(report.checks.merkleRoot, 'pass')
    assert.equal(report.checks.initialWeights, 'fail')
    assert.equal(report.checks.replay, 'skipped')
    assert.deepEqual(report.segments, [])
    assert.match(report.reason ?? '', /^checkpoint at step 0: expected the seed-derived initial state 0x[0-9a-f]{64}, got 0x/)
  })

  it('checks the manifest, spec hash, merkle root and availability in order', async () => {
    const cases: [string, () => Promise<Hex>, keyof Awaited<ReturnType<typeof verifyProof>>['checks'], RegExp][] = [
      ['a missing manifest', async () => `0x${'11'.repeat(32)}`, 'manifest', /manifest 0x1111.*: blob not found/],
      ['a manifest that is not one', () => store.putJson({hello: 'world'}), 'manifest', /manifest 0x[0-9a-f]+: /],
      ['a skipped checkpoint', () => putManifest({checkpoints: honest.checkpoints.filter((c) => c.step !== 20)}), 'manifest', /expected steps 0, 20, 40, 60, got 0, 40, 60/],
      ['another spec', () => putManifest({specHash: `0x${'22'.repeat(32)}`}), 'specHash', /manifest specHash: expected 0x/],
      ['another data set', () => putManifest({datasetHash: `0x${'33'.repeat(32)}`}), 'datasetHash', /manifest datasetHash: expected 0x/],
      ['a wrong merkle root', () => putManifest({merkleRoot: `0x${'44'.repeat(32)}`}), 'merkleRoot', /manifest merkleRoot: expected 0x[0-9a-f]+ \(recomputed\)/],
    ]
    for (const [what, make, check, reason] of cases) {
      const report = await verifyProof({spec, store, manifestHash: await make(), randomness})
      assert.equal(report.accepted, false, what)
      assert.equal(report.checks[check], 'fail', what)
      assert.match(report.reason ?? '', reason, what)
    }
    const report = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, proofRoot: `0x${'55'.repeat(32)}`})
    assert.equal(report.checks.merkleRoot, 'fail')
    // a checkpoint that was never published
    const ghost: Hex = `0x${'66'.repeat(32)}`
    const checkpoints = honest.checkpoints.map((c) => (c.step === 40 ? {step: 40, hash: ghost} : c))
    const unavailable = await verifyProof({spec, store, manifestHash: await putManifest({checkpoints, merkleRoot: merkleRoot(checkpoints.map((c) => c.hash))}), randomness})
    assert.equal(unavailable.checks.availability, 'fail')
    assert.match(unavailable.reason ?? '', /checkpoint at step 40 \(0x6666.*\): blob not found/)
  })

  it('rejects a checkpoint whose stored bytes changed, before any replay and whichever segments are sampled', async () => {
    const copyDir = await mkdtemp(join(tmpdir(), 'gensyn-pol-copy-'))
    try {
      const copy = createLocalStore(copyDir, {fsync: false})
      for (const hash of [honest.manifestHash, ...honest.checkpoints.map((c) => c.hash)]) await copy.put(await store.get(hash))
      const hash = honest.checkpoints[1]?.hash as Hex
      const path = join(copyDir, 'sha256', hash.slice(2, 4), hash.slice(4))
      const bytes = await readFile(path)
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff
      await writeFile(path, bytes)
      // Segment 3 neither starts nor ends at the changed checkpoint: availability still reads it.
      for (const segments of [[1], [3]]) {
        const report = await verifyProof({spec, store: copy, manifestHash: honest.manifestHash, randomness, segments})
        assert.equal(report.accepted, false)
        assert.equal(report.checks.availability, 'fail')
        assert.equal(report.checks.replay, 'skipped')
        assert.deepEqual(report.segments, [])
        assert.match(report.reason ?? '', /^checkpoint at step 20 \(0x[0-9a-f]+\): blob 0x[0-9a-f]+: expected its sha256 to match/)
      }
    } finally {
      await rm(copyDir, {recursive: true, force: true})
    }
  })

  it('refuses (inconclusive) to replay on a runtime other than the manifest\'s', async () => {
    const elsewhere = await putManifest({runtime: {...honest.manifest.runtime, kernels: 'gensyn-wasm-fixes/0'}})
    const report = await verifyProof({spec, store, manifestHash: elsewhere, randomness})
    assert.equal(report.accepted, false)
    assert.equal(report.inconclusive, true)
    assert.equal(report.checks.runtime, 'fail')
    assert.equal(report.checks.replay, 'skipped')
    assert.match(report.reason ?? '', /^runtime: the proof was made on wasm\(simd\) tfjs@4\.22\.0 kernels=gensyn-wasm-fixes\/0, this verifier runs wasm\(simd\) tfjs@4\.22\.0 kernels=gensyn-wasm-fixes\/1$/)
    const onCpu = await verifyProof({spec, store, manifestHash: honest.manifestHash, randomness, backend: 'cpu'})
    assert.equal(onCpu.inconclusive, true)
    assert.match(onCpu.reason ?? '', /refusing to replay it on backend cpu/)
  })

  it('verifies a CNN proof on wasm (fixed Conv2DBackpropFilter/MaxPoolGrad kernels) deterministically', async () => {
    const cnn = tinySpec({inputShape: '[28, 28, 1]', layers: tinyCnnLayers, steps: 30, interval: 10})
    const a = await trainJob({spec: cnn, store})
    const b = await trainJob({spec: cnn, store})
    assert.deepEqual(b.checkpoints, a.checkpoints)
    const report = await verifyProof({spec: cnn, store, manifestHash: a.manifestHash, randomness, segments: [0, 1, 2]})
    assert.equal(report.accepted, true, report.reason)
  })
})
