import assert from 'node:assert/strict'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import {loadJobSpec} from '../../ml/spec/loadJobSpec.js'
import {tinySpec} from '../../ml/train/testSpecs.js'
import type {CheckpointDistances} from '../distances/parameterDistances.js'
import {distanceMetrics, withinThresholds} from '../distances/thresholds.js'
import {addMagnitudes, deriveThresholds} from './deriveThresholds.js'
import {ProfileError} from './errors.js'
import {profileJob, spreadSegments, type ProfileProgress} from './profileJob.js'

const dist = (l1: number, l2: number, linf: number, cosine: number) => ({l1, l2, linf, cosine})
const sample = (whole: ReturnType<typeof dist>, k: ReturnType<typeof dist>): {distances: CheckpointDistances} => ({
  distances: {whole, perTensor: [{name: 'k', ...k}]},
})

describe('profile: deriveThresholds', () => {
  const magnitudes = addMagnitudes(undefined, {step: 1, weights: [{name: 'k', shape: [3], values: new Float32Array([3, -4, 0])}], optimizer: {type: 'sgd'}} as Checkpoint)

  it('measures the reference magnitudes', () => {
    assert.deepEqual(magnitudes, {whole: {l1: 7, l2: 5, linf: 4}, perTensor: {k: {l1: 7, l2: 5, linf: 4}}})
  })

  it('is S × the largest observed distance (S² for cosine), floored at ρ × the reference magnitude', () => {
    const {thresholds, observed, rule} = deriveThresholds({
      samples: [sample(dist(1e-4, 2e-6, 1e-7, 1e-14), dist(1e-4, 2e-6, 1e-7, 1e-14)), sample(dist(3e-4, 1e-6, 5e-7, 0), dist(0, 0, 0, 0))],
      magnitudes,
      safetyFactor: 10,
      floorRelative: 2 ** -10,
    })
    assert.deepEqual(observed.whole, dist(3e-4, 2e-6, 5e-7, 1e-14))
    // whole: every observed × 10 is below the floor except cosine (1e-14 × 100 = 1e-12 < 2^-21 ≈ 4.77e-7: floor too)
    assert.deepEqual(
      {...thresholds, perTensor: undefined},
      {l1: 7 * 2 ** -10, l2: 5 * 2 ** -10, linf: 4 * 2 ** -10, cosine: 2 ** -21, perTensor: undefined},
    )
    const big = deriveThresholds({samples: [sample(dist(1, 0.5, 0.25, 1e-3), dist(1, 0.5, 0.25, 1e-3))], magnitudes, safetyFactor: 10, floorRelative: 2 ** -10})
    assert.deepEqual(big.thresholds.perTensor?.k, {l1: 10, l2: 5, linf: 2.5, cosine: 0.1})
    assert.equal(big.thresholds.l2, 5)
    assert.match(rule, /^threshold = max\(10 × largest observed distance, floor\) for l1, l2 and linf, max\(100 × largest observed, floor\) for cosine/)
  })

  it('refuses diverged samples and empty profiles', () => {
    assert.throws(() => deriveThresholds({samples: [sample(dist(Number.NaN, 0, 0, 0), dist(0, 0, 0, 0))], magnitudes}), /whole: l1 distance is not finite: the reference run or a replay diverged \(NaN or infinite weights\)/)
    assert.throws(() => deriveThresholds({samples: [sample(dist(0, 0, 0, 0), dist(0, Number.MAX_VALUE, 0, 0))], magnitudes}), /sample \(seed \?, segment \?, replay\) k: l2 distance is not finite/)
    assert.throws(() => deriveThresholds({samples: [], magnitudes}), ProfileError)
    assert.throws(() => deriveThresholds({samples: [], magnitudes, safetyFactor: 0.5}), /safetyFactor: expected a finite number >= 1, got 0.5/)
  })

  it('spreads the profiled segments evenly, first and last included', () => {
    assert.deepEqual(spreadSegments(10, 3), [0, 5, 9])
    assert.deepEqual(spreadSegments(4, 2), [0, 3])
    assert.deepEqual(spreadSegments(4, 9), [0, 1, 2, 3])
    assert.deepEqual(spreadSegments(5, 1), [0])
  })
})

describe('profile: profileJob', () => {
  it('measures cpu vs wasm drift on smoke-mlp and derives thresholds above it', async () => {
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const progress: ProfileProgress[] = []
    const result = await profileJob({spec, runtimes: ['cpu', 'wasm'], segments: 2, onProgress: (p) => progress.push(p)})
    assert.deepEqual(result.runtimes.map((r) => r.backend), ['cpu', 'wasm'])
    assert.match(result.runtimeClass, /^cpu tfjs@4\.22\.0 kernels=tfjs-stock node@[\d.]+ \+ wasm\(simd\) tfjs@4\.22\.0 kernels=gensyn-wasm-fixes\/1$/)
    assert.deepEqual(result.samples.map((s) => [s.seed, s.segment, s.startStep, s.endStep, s.replay.split(' ')[0], s.exact]), [
      [7, 0, 0, 50, 'cpu', true],
      [7, 3, 150, 200, 'cpu', true],
      [7, 0, 0, 50, 'wasm(simd)', false],
      [7, 3, 150, 200, 'wasm(simd)', false],
    ])
    // the reference runtime reproduces itself bit for bit; wasm drifts, but only slightly (measured ~1e-6 in l2)
    for (const s of result.samples.filter((x) => x.exact)) assert.deepEqual(s.distances.whole, {l1: 0, l2: 0, linf: 0, cosine: 0})
    for (const s of result.samples.filter((x) => !x.exact)) {
      assert.ok(s.distances.whole.l2 > 0 && s.distances.whole.l2 < 1e-3, `l2 ${s.distances.whole.l2}`)
      assert.ok(s.distances.whole.cosine > 0 && s.distances.whole.cosine < 1e-9, `cosine ${s.distances.whole.cosine}`)
    }
    // thresholds: > 0 for every metric, whole and per tensor (adam's m and v included), 100× the largest drift
    const names = ['0/dense/kernel', '0/dense/bias', '1/dense/kernel', '1/dense/bias']
    assert.deepEqual(Object.keys(result.thresholds.perTensor ?? {}), [...names, ...names.map((n) => `m/${n}`), ...names.map((n) => `v/${n}`)])
    for (const limits of [result.thresholds, ...Object.values(result.thresholds.perTensor ?? {})])
      for (const m of distanceMetrics) assert.ok((limits[m] ?? 0) > 0, `${m} threshold is positive`)
    const wasm = result.samples.filter((s) => !s.exact)
    for (const m of ['l1', 'l2', 'linf'] as const) {
      const max = Math.max(...wasm.map((s) => s.distances.whole[m]))
      assert.equal(result.observed.whole[m], max)
      assert.ok((result.thresholds[m] ?? 0) >= 100 * max, `${m}: ${result.thresholds[m]} >= 100 × ${max}`)
    }
    assert.ok((result.thresholds.cosine ?? 0) >= 1e4 * result.observed.whole.cosine)
    for (const s of result.samples) assert.deepEqual(withinThresholds(s.distances, result.thresholds), {ok: true, violations: []})
    assert.match(result.rule, /^threshold = max\(100 × largest observed distance, floor\)/)
    assert.equal(result.safetyFactor, 100)
    assert.equal(progress.filter((p) => p.kind === 'sample').length, 4)
    assert.deepEqual(progress.filter((p) => p.kind === 'reference').map((p) => p.kind === 'reference' && p.step), [50, 150, 200])
  })

  it('falls back to the floors on one deterministic runtime, and varies the seed', async () => {
    const spec = tinySpec({steps: 20, interval: 10, seed: 3})
    const result = await profileJob({spec, runtimes: ['wasm'], seeds: 2, segments: 1})
    assert.deepEqual(result.samples.map((s) => [s.seed, s.segment, s.exact]), [[3, 0, true], [4, 0, true]])
    assert.equal(result.observed.whole.l2, 0)
    assert.ok((result.thresholds.l2 ?? 0) > 0)
    assert.equal(result.thresholds.cosine, 2 ** -41)
    // the floors: ρ = 2^-20 times the larger of the two seeds' end-checkpoint magnitudes
    const {whole} = result.magnitudes
    assert.ok(whole.l2 > 0)
    assert.deepEqual({l1: result.thresholds.l1, l2: result.thresholds.l2, linf: result.thresholds.linf}, {l1: 2 ** -20 * whole.l1, l2: 2 ** -20 * whole.l2, linf: 2 ** -20 * whole.linf})
    assert.equal(result.thresholds.perTensor?.['v/0/dense/kernel']?.l2, 2 ** -20 * (result.magnitudes.perTensor['v/0/dense/kernel']?.l2 ?? Number.NaN))
  })

  it('rejects bad counts and reports runtimes that do not load', async function () {
    const spec = tinySpec({steps: 20, interval: 10})
    await assert.rejects(profileJob({spec, segments: 0}), /^ProfileError: segments: expected a positive integer, got 0/)
    await assert.rejects(profileJob({spec, seeds: 1.5}), (e: unknown) => e instanceof ProfileError && e.exitCode === 2)
    await assert.rejects(profileJob({spec, runtimes: []}), /runtimes: expected at least one backend, got none/)
    const specifier = '@tensorflow/tfjs-node-gpu'
    if (await import(specifier).then(() => true, () => false)) this.skip()
    await assert.rejects(profileJob({spec, runtimes: ['gpu']}), /^ProfileError: runtimes: none of gpu loads here/)
    const result = await profileJob({spec, runtimes: ['gpu', 'wasm'], segments: 1})
    assert.deepEqual(result.runtimes.map((r) => r.backend), ['wasm'])
    assert.equal(result.unavailable[0]?.backend, 'gpu')
    assert.match(result.unavailable[0]?.reason ?? '', /^backend gpu is unavailable/)
  })
})
