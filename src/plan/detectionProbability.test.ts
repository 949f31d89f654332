import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import type {Hex} from 'viem'
import {selectSegments} from '../pol/selectSegments.js'
import {detectionProbability, segmentsForTarget} from './detectionProbability.js'
import {PlanError} from './errors.js'

/** All k-subsets of items. */
function* subsets(items: number[], k: number, from = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) {
    yield acc
    return
  }
  for (let i = from; i < items.length; i++) yield* subsets(items, k, i + 1, [...acc, items[i] as number])
}

/** Brute force: the share of equally likely plans (final + s-1 of the others, or s of all) that replay a faked segment. */
function bruteForce(n: number, s: number, faked: number[], includesFinal: boolean): number {
  const final = n - 1
  const pool = Array.from({length: includesFinal ? n - 1 : n}, (_, i) => i)
  let hit = 0
  let total = 0
  for (const picked of subsets(pool, includesFinal ? s - 1 : s)) {
    const plan = includesFinal ? [...picked, final] : picked
    total++
    if (plan.some((x) => faked.includes(x))) hit++
  }
  return hit / total
}

const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-12, `${what}: expected ${b}, got ${a}`)

describe('plan: detectionProbability', () => {
  it('equals brute-force enumeration over every small plan', () => {
    for (let n = 1; n <= 9; n++)
      for (let s = 1; s <= n; s++)
        for (let f = 0; f <= n; f++) {
          // faked among the non-final segments (the final one is always checked)
          if (f <= n - 1) {
            const faked = Array.from({length: f}, (_, i) => i)
            near(detectionProbability({segmentCount: n, sampled: s, faked: f}), bruteForce(n, s, faked, true), `n=${n} s=${s} f=${f}`)
          }
          // a uniform plan over all n (no final guarantee)
          const spread = Array.from({length: f}, (_, i) => n - 1 - i)
          near(detectionProbability({segmentCount: n, sampled: s, faked: f, includesFinal: false}), bruteForce(n, s, spread, false), `n=${n} s=${s} f=${f} no final`)
          if (f >= 1) assert.equal(detectionProbability({segmentCount: n, sampled: s, faked: f, fakedIncludesFinal: true}), 1)
        }
  })

  it('matches known answers (exact fractions from Python math.comb)', () => {
    near(detectionProbability({segmentCount: 100, sampled: 10, faked: 2}), 94 / 539, '100/10/2')
    near(detectionProbability({segmentCount: 100, sampled: 20, faked: 10}), 1282000957 / 1433500047, '100/20/10')
    near(detectionProbability({segmentCount: 1000, sampled: 50, faked: 5}), 1828491143759 / 8209039793949, '1000/50/5')
    near(detectionProbability({segmentCount: 20, sampled: 5, faked: 3, includesFinal: false}), 137 / 228, '20/5/3 no final')
    near(detectionProbability({segmentCount: 10, sampled: 2, faked: 1}), 1 / 9, 'one of nine')
    assert.equal(detectionProbability({segmentCount: 50, sampled: 1, faked: 25}), 0, 'only the final is replayed')
    assert.equal(detectionProbability({segmentCount: 5, sampled: 99, faked: 1}), 1, 'sampled is capped at the segment count')
  })

  it('agrees with the detection rate of the real selectSegments', () => {
    const faked = [0, 3, 4]
    let hit = 0
    const trials = 3000
    for (let i = 0; i < trials; i++) {
      const randomness = `0x${createHash('sha256').update(`plan ${i}`).digest('hex')}` as Hex
      if (selectSegments({randomness, segmentCount: 12, count: 3}).some((s) => faked.includes(s))) hit++
    }
    const p = detectionProbability({segmentCount: 12, sampled: 3, faked: 3}) // 1 - C(8,2)/C(11,2) = 27/55
    near(p, 27 / 55, 'formula')
    assert.ok(Math.abs(hit / trials - p) < 0.03, `observed ${hit / trials}, expected ${p}`)
  })

  it('rejects impossible counts as bad input', () => {
    assert.throws(() => detectionProbability({segmentCount: 10, sampled: 2, faked: 10}), /^PlanError: faked: expected an integer in \[0, 9\], got 10/)
    assert.throws(() => detectionProbability({segmentCount: 0, sampled: 2, faked: 0}), /segmentCount: expected an integer in \[1, /)
    assert.throws(() => detectionProbability({segmentCount: 10, sampled: 0, faked: 1}), /sampled: expected an integer/)
    assert.throws(() => detectionProbability({segmentCount: 10, sampled: 2, faked: 0, fakedIncludesFinal: true}), /faked: expected an integer in \[1, 10\], got 0/)
    assert.throws(() => detectionProbability({segmentCount: 10, sampled: 2.5, faked: 1}), (e: unknown) => e instanceof PlanError && e.exitCode === 2)
  })
})

describe('plan: segmentsForTarget', () => {
  it('gives the smallest sample reaching the target (known answers, exact rational search in Python)', () => {
    assert.equal(segmentsForTarget({segmentCount: 100, faked: 10, target: 0.99}), 36)
    assert.equal(segmentsForTarget({segmentCount: 100, faked: 1, target: 0.99}), 100)
    assert.equal(segmentsForTarget({segmentCount: 1000, faked: 10, target: 0.99}), 369)
    assert.equal(segmentsForTarget({segmentCount: 1000, faked: 50, target: 0.99}), 87)
    assert.equal(segmentsForTarget({segmentCount: 60, faked: 6, target: 0.9}), 19)
    assert.equal(segmentsForTarget({segmentCount: 20, faked: 3, target: 0.5, includesFinal: false}), 4)
    assert.equal(segmentsForTarget({segmentCount: 10, faked: 1, target: 0.5}), 6)
    // an exact hit: 1 of 100 non-final segments, 99 draws detect with probability exactly 0.99
    assert.equal(segmentsForTarget({segmentCount: 101, faked: 1, target: 0.99}), 100)
    assert.equal(segmentsForTarget({segmentCount: 7, faked: 1, target: 0.99, fakedIncludesFinal: true}), 1)
  })

  it('is the first size where detectionProbability reaches the target', () => {
    for (let n = 2; n <= 40; n += 3)
      for (let f = 1; f < n; f += 2)
        for (const target of [0.5, 0.9, 0.99]) {
          const s = segmentsForTarget({segmentCount: n, faked: f, target})
          assert.ok(detectionProbability({segmentCount: n, sampled: s, faked: f}) >= target - 1e-12, `n=${n} f=${f} target=${target}: ${s} reaches it`)
          if (s > 1) assert.ok(detectionProbability({segmentCount: n, sampled: s - 1, faked: f}) < target, `n=${n} f=${f} target=${target}: ${s - 1} does not`)
        }
  })

  it('says when the target is out of reach', () => {
    assert.throws(() => segmentsForTarget({segmentCount: 10, faked: 0, target: 0.99}), /^PlanError: target: 0.99 is out of reach with 0 faked of 10 segments/)
    assert.throws(() => segmentsForTarget({segmentCount: 10, faked: 1, target: 0}), /target: expected a probability in \(0, 1\], got 0/)
    assert.throws(() => segmentsForTarget({segmentCount: 10, faked: 1, target: Number.NaN}), PlanError)
  })
})
