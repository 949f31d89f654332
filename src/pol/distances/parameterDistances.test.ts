import assert from 'node:assert/strict'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import {DistanceError} from './errors.js'
import {nonFiniteDistance, parameterDistances, vectorDistances} from './parameterDistances.js'

const f32 = (...values: number[]) => new Float32Array(values)
const close = (actual: number, expected: number, what: string, rel = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what}: expected ${expected}, got ${actual}`)

function adam(step: number, tensors: Record<string, number[]>, m: number[][], v: number[][]): Checkpoint {
  const weights = Object.entries(tensors).map(([name, values]) => ({name, shape: [values.length], values: f32(...values)}))
  return {
    step,
    weights,
    optimizer: {
      type: 'adam',
      t: step,
      beta1Power: 0.5,
      beta2Power: 0.25,
      m: weights.map((w, i) => ({name: `m/${w.name}`, shape: w.shape, values: f32(...(m[i] ?? []))})),
      v: weights.map((w, i) => ({name: `v/${w.name}`, shape: w.shape, values: f32(...(v[i] ?? []))})),
    },
  }
}

describe('parameterDistances', () => {
  it('computes l1, l2, linf and cosine distance (known answers)', () => {
    // a = (1, 2, 3), b = (1, 0, 7): a - b = (0, 2, -4); a.b = 22, |a|² = 14, |b|² = 50
    const d = vectorDistances(f32(1, 2, 3), f32(1, 0, 7))
    assert.equal(d.l1, 6)
    close(d.l2, Math.sqrt(20), 'l2')
    assert.equal(d.linf, 4)
    close(d.cosine, 1 - 22 / Math.sqrt(14 * 50), 'cosine')
    assert.deepEqual(vectorDistances(f32(), f32()), {l1: 0, l2: 0, linf: 0, cosine: 0})
  })

  it('normalises cosine by both norms (catches the |a|·|a| denominator bug of the reference PoL code)', () => {
    // parallel vectors of different norms: cos = 1, distance 0 (the buggy a.b / (|a| |a|) gives 50 / 25 = 2, distance -1)
    close(vectorDistances(f32(3, 4), f32(6, 8)).cosine + 1, 1, 'parallel')
    assert.ok(Math.abs(vectorDistances(f32(3, 4), f32(6, 8)).cosine) < 1e-15)
    // 45 degrees, norms sqrt(2) and 2: 1 - 1/sqrt(2) (the buggy form gives 1 - 2/2 = 0)
    close(vectorDistances(f32(1, 1), f32(2, 0)).cosine, 1 - Math.SQRT1_2, '45 degrees')
    close(vectorDistances(f32(2, 0), f32(1, 1)).cosine, 1 - Math.SQRT1_2, 'symmetric')
    // orthogonal and opposite, different norms
    assert.equal(vectorDistances(f32(1, 0), f32(0, 5)).cosine, 1)
    close(vectorDistances(f32(1, 2), f32(-3, -6)).cosine, 2, 'opposite')
    // scale invariance
    close(vectorDistances(f32(0.5, -1, 2), f32(4, 1, 3)).cosine, vectorDistances(f32(50, -100, 200), f32(4, 1, 3)).cosine, 'scale', 1e-12)
  })

  it('keeps cosine precise for nearly parallel vectors, where 1 - a.b/(|a||b|) cancels to 0', () => {
    // a = (1, 0), b = (1, 2^-30): 1 - cos = 1 - 1/sqrt(1 + 2^-60) = 2^-61 - 3·2^-123 + ...
    const d = vectorDistances(f32(1, 0), f32(1, 2 ** -30))
    close(d.cosine, 2 ** -61, 'cosine', 1e-9)
    assert.equal(1 - 1 / Math.sqrt(1 + 2 ** -60), 0, 'the naive formula loses it')
  })

  it('defines zero vectors, and keeps distances finite when values are not', () => {
    assert.equal(vectorDistances(f32(0, 0), f32(0, -0)).cosine, 0)
    assert.equal(vectorDistances(f32(0, 0), f32(0, 3)).cosine, 1)
    const saturated = {l1: nonFiniteDistance, l2: nonFiniteDistance, linf: nonFiniteDistance, cosine: nonFiniteDistance}
    assert.deepEqual(vectorDistances(f32(1, Number.NaN), f32(1, 2)), saturated)
    assert.deepEqual(vectorDistances(f32(1, Number.POSITIVE_INFINITY), f32(1, 2)), saturated)
    assert.deepEqual(vectorDistances(f32(1, Number.POSITIVE_INFINITY), f32(1, Number.NEGATIVE_INFINITY)), saturated)
    // identical vectors are at distance 0 even with NaN or infinite elements
    assert.deepEqual(vectorDistances(f32(1, Number.NaN, Number.NEGATIVE_INFINITY), f32(1, Number.NaN, Number.NEGATIVE_INFINITY)), {l1: 0, l2: 0, linf: 0, cosine: 0})
    assert.ok(Number.isFinite(nonFiniteDistance))
    assert.throws(() => vectorDistances(f32(1), f32(1, 2)), DistanceError)
  })

  it('takes the whole vector over the weights in checkpoint order and lists every tensor', () => {
    const a = adam(3, {k: [1, 2], b: [3]}, [[9, 9], [9]], [[1, 1], [1]])
    const b = adam(3, {k: [1, 0], b: [7]}, [[9, 8], [9]], [[1, 1], [1]])
    const d = parameterDistances(a, b)
    assert.deepEqual(d.whole, vectorDistances(f32(1, 2, 3), f32(1, 0, 7)), 'optimizer state is not in the whole vector')
    assert.deepEqual(
      d.perTensor.map((t) => t.name),
      ['k', 'b', 'm/k', 'm/b', 'v/k', 'v/b'],
    )
    assert.deepEqual(d.perTensor[2], {name: 'm/k', ...vectorDistances(f32(9, 9), f32(9, 8))})
    assert.equal(d.perTensor[1]?.l1, 4)
    assert.deepEqual(d.perTensor[4], {name: 'v/k', l1: 0, l2: 0, linf: 0, cosine: 0})
  })

  it('refuses checkpoints with other tensors', () => {
    const a = adam(1, {k: [1, 2]}, [[0, 0]], [[0, 0]])
    assert.throws(() => parameterDistances(a, adam(1, {j: [1, 2]}, [[0, 0]], [[0, 0]])), /checkpoint tensor 0: expected the same name and shape on both sides, got k \[2\] and j \[2\]/)
    assert.throws(() => parameterDistances(a, adam(1, {k: [1, 2, 3]}, [[0, 0, 0]], [[0, 0, 0]])), DistanceError)
    assert.throws(() => parameterDistances(a, {step: 1, weights: a.weights, optimizer: {type: 'sgd'}}), /optimizer: expected the same on both sides, got adam and sgd/)
  })

  it('measures the replay against the committed update when given the start: scale-free (known answers)', () => {
    // start k = (0, 0), b = 1; committed end (3, 4), 1: update = ((3, 4), 0), |update| = 5; replay (3, 4.5), 1: |replay - end| = 0.5
    const start = adam(0, {k: [0, 0], b: [1]}, [[0, 0], [0]], [[0, 0], [0]])
    const end = adam(2, {k: [3, 4], b: [1]}, [[0, 0], [0]], [[0, 0], [0]])
    const replay = adam(2, {k: [3, 4.5], b: [1]}, [[0, 0], [0]], [[0, 0], [0]])
    assert.equal(parameterDistances(replay, end).update, undefined, 'not measured without the start')
    assert.equal(parameterDistances(replay, end, start).update, 0.1)
    assert.equal(parameterDistances(end, end, start).update, 0)
    // the same segment at ten times the scale (e.g. a ten times larger learning rate) gives the same number
    const scaled = (cp: Checkpoint) => ({...cp, weights: cp.weights.map((w) => ({...w, values: w.values.map((x) => x * 10)}))})
    assert.equal(parameterDistances(scaled(replay), scaled(end), scaled(start)).update, 0.1)
    // a segment that committed no update at all: any difference is infinitely large relative to it
    assert.equal(parameterDistances(replay, start, start).update, nonFiniteDistance)
    assert.throws(() => parameterDistances(replay, end, adam(0, {k: [0, 0, 0], b: [1]}, [[0, 0, 0], [0]], [[0, 0, 0], [0]])), /start checkpoint tensor k: expected 2 values, got 3/)
  })
})
