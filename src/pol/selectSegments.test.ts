import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import type {Hex} from 'viem'
import {SegmentSelectionError, selectSegments} from './selectSegments.js'

const randomness = (i: number): Hex => `0x${createHash('sha256').update(`block ${i}`).digest('hex')}`

describe('selectSegments', () => {
  it('is deterministic, distinct, sorted and always includes the final segment', () => {
    for (let i = 0; i < 50; i++) {
      const r = randomness(i)
      const picked = selectSegments({randomness: r, segmentCount: 12, count: 4})
      assert.deepEqual(picked, selectSegments({randomness: r, segmentCount: 12, count: 4}))
      assert.equal(picked.length, 4)
      assert.equal(new Set(picked).size, 4)
      assert.deepEqual(picked, [...picked].sort((a, b) => a - b))
      assert.ok(picked.includes(11))
      assert.ok(picked.every((s) => Number.isInteger(s) && s >= 0 && s < 12))
    }
  })

  it('depends on the randomness and reaches every segment', () => {
    const seen = new Set<string>()
    const hits = new Array<number>(10).fill(0)
    for (let i = 0; i < 200; i++) {
      const picked = selectSegments({randomness: randomness(i), segmentCount: 10, count: 2})
      seen.add(picked.join(','))
      for (const s of picked) hits[s] = (hits[s] ?? 0) + 1
    }
    assert.equal(seen.size, 9, 'all 9 pairs (x, 9) occur')
    assert.equal(hits[9], 200)
    for (let s = 0; s < 9; s++) assert.ok((hits[s] ?? 0) > 5, `segment ${s} picked ${hits[s]} times`)
  })

  it('pins the selection for a known randomness (cross-implementation vector)', () => {
    assert.deepEqual(selectSegments({randomness: `0x${'00'.repeat(32)}`, segmentCount: 8, count: 3}), KNOWN)
  })

  it('caps count at the number of segments', () => {
    assert.deepEqual(selectSegments({randomness: randomness(1), segmentCount: 3, count: 10}), [0, 1, 2])
    assert.deepEqual(selectSegments({randomness: randomness(1), segmentCount: 1, count: 2}), [0])
  })

  it('top-q picks the largest committed updates whatever the randomness, and fills the rest uniformly', () => {
    //                  0    1    2    3    4    5    6    7    8    9 (final: its norm is not used)
    const updateNorms = [0.5, 0.2, 0.9, 4.0, 0.1, 0.3, 2.5, 0.4, 0.6, 99]
    const fills = new Set<number>()
    for (let i = 0; i < 60; i++) {
      const r = randomness(i)
      assert.deepEqual(selectSegments({randomness: r, segmentCount: 10, count: 2, strategy: 'top-q', updateNorms, topQ: 1}), [3, 9])
      assert.deepEqual(selectSegments({randomness: r, segmentCount: 10, count: 3, strategy: 'top-q', updateNorms, topQ: 2}), [3, 6, 9])
      const mixed = selectSegments({randomness: r, segmentCount: 10, count: 4, strategy: 'top-q', updateNorms}) // topQ = ceil(3 / 2) = 2
      assert.equal(mixed.length, 4)
      assert.ok([3, 6, 9].every((s) => mixed.includes(s)), `${mixed}`)
      for (const s of mixed) if (![3, 6, 9].includes(s)) fills.add(s)
      // Q = 0 is the uniform plan, pick for pick
      assert.deepEqual(selectSegments({randomness: r, segmentCount: 10, count: 3, strategy: 'top-q', updateNorms, topQ: 0}), selectSegments({randomness: r, segmentCount: 10, count: 3}))
    }
    assert.deepEqual([...fills].sort((a, b) => a - b), [0, 1, 2, 4, 5, 7, 8], 'the uniform fill reaches every other non-final segment')
    // ties go to the lower index; NaN (a diverged update) ranks first
    assert.deepEqual(selectSegments({randomness: randomness(1), segmentCount: 4, count: 2, strategy: 'top-q', updateNorms: [1, 2, 2, 0], topQ: 1}), [1, 3])
    assert.deepEqual(selectSegments({randomness: randomness(1), segmentCount: 4, count: 2, strategy: 'top-q', updateNorms: [1, 5, Number.NaN, 0], topQ: 1}), [2, 3])
  })

  it('rejects bad top-q input', () => {
    const base = {randomness: randomness(1), segmentCount: 4, count: 3, strategy: 'top-q'} as const
    assert.throws(() => selectSegments(base), /updateNorms: expected one number per segment \(4\) for top-q sampling, got none/)
    assert.throws(() => selectSegments({...base, updateNorms: [1, 2, 3]}), /got 3/)
    assert.throws(() => selectSegments({...base, updateNorms: [1, -2, 3, 4]}), /updateNorms\[1\]: expected a number >= 0, got -2/)
    assert.throws(() => selectSegments({...base, updateNorms: [1, 2, 3, 4], topQ: 3}), /topQ: expected an integer in \[0, count - 1 = 2\], got 3/)
    assert.throws(() => selectSegments({...base, strategy: 'largest' as 'top-q', updateNorms: [1, 2, 3, 4]}), /strategy: expected one of uniform, top-q, got "largest"/)
  })

  it('rejects bad input', () => {
    assert.throws(() => selectSegments({randomness: '0x12', segmentCount: 3, count: 1}), SegmentSelectionError)
    assert.throws(() => selectSegments({randomness: randomness(1), segmentCount: 0, count: 1}), /segmentCount: expected an integer/)
    assert.throws(() => selectSegments({randomness: randomness(1), segmentCount: 3, count: 0}), /count: expected a positive integer, got 0/)
  })
})

// computed with an independent Python implementation of docs/checkpoint-format.md "Randomness"
const KNOWN = [1, 5, 7]
