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

  it('rejects bad input', () => {
    assert.throws(() => selectSegments({randomness: '0x12', segmentCount: 3, count: 1}), SegmentSelectionError)
    assert.throws(() => selectSegments({randomness: randomness(1), segmentCount: 0, count: 1}), /segmentCount: expected an integer/)
    assert.throws(() => selectSegments({randomness: randomness(1), segmentCount: 3, count: 0}), /count: expected a positive integer, got 0/)
  })
})

// computed with an independent Python implementation of docs/checkpoint-format.md "Randomness"
const KNOWN = [1, 5, 7]
