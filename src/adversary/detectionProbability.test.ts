import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import type {Hex} from 'viem'
import {selectSegments} from '../pol/selectSegments.js'
import {detectionProbability, samplesForDetection} from './detectionProbability.js'
import {AdversaryInputError} from './errors.js'

const blockHash = (i: number): Hex => `0x${createHash('sha256').update(`detection ${i}`).digest('hex')}`

describe('detectionProbability', () => {
  it("matches the rate at which selectSegments samples a faked segment", () => {
    const cases: {segmentCount: number; fakedSegments: number[]; sampled: number; exact: number}[] = [
      {segmentCount: 4, fakedSegments: [1, 2], sampled: 2, exact: 2 / 3},
      {segmentCount: 10, fakedSegments: [0, 3, 5], sampled: 3, exact: 1 - 15 / 36},
      {segmentCount: 10, fakedSegments: [4], sampled: 2, exact: 1 / 9},
      {segmentCount: 6, fakedSegments: [0, 1, 2, 3, 4], sampled: 2, exact: 1},
      {segmentCount: 6, fakedSegments: [0, 1, 2, 3, 4], sampled: 1, exact: 0},
    ]
    const draws = 3000
    for (const {segmentCount, fakedSegments, sampled, exact} of cases) {
      const p = detectionProbability({segmentCount, fakedSegments, sampled})
      assert.ok(Math.abs(p - exact) < 1e-12, `${segmentCount}/${fakedSegments}/${sampled}: ${p} vs ${exact}`)
      let hits = 0
      for (let i = 0; i < draws; i++)
        if (selectSegments({randomness: blockHash(i), segmentCount, count: sampled}).some((s) => fakedSegments.includes(s))) hits++
      // 3000 fixed block hashes: the binomial standard deviation is at most 0.0092
      assert.ok(Math.abs(hits / draws - p) < 0.04, `${segmentCount}/${fakedSegments}/${sampled}: sampled ${hits / draws}, formula ${p}`)
    }
  })

  it('is 1 when the always-sampled last segment is faked, 0 when nothing is, and 1 when every segment is sampled', () => {
    assert.equal(detectionProbability({segmentCount: 8, fakedSegments: [7], sampled: 1}), 1)
    assert.equal(detectionProbability({segmentCount: 8, fakedSegments: [], sampled: 8}), 0)
    assert.equal(detectionProbability({segmentCount: 8, fakedSegments: [2], sampled: 8}), 1)
    assert.equal(detectionProbability({segmentCount: 8, fakedSegments: [2], sampled: 50}), 1)
    assert.ok(Math.abs(detectionProbability({segmentCount: 8, fakedSegments: [2, 2, 2], sampled: 2}) - 1 / 7) < 1e-12, 'repeated indices count once')
    assert.throws(() => detectionProbability({segmentCount: 4, fakedSegments: [4], sampled: 2}), AdversaryInputError)
    assert.throws(() => detectionProbability({segmentCount: 0, fakedSegments: [], sampled: 2}), /segmentCount: expected a positive integer, got 0/)
  })

  it('finds the smallest sample that reaches a detection target', () => {
    assert.equal(samplesForDetection({segmentCount: 4, fakedCount: 2, target: 0.5}), 2)
    assert.equal(samplesForDetection({segmentCount: 4, fakedCount: 2, target: 0.99}), 3)
    // pool of 20 with 10 faked: 5 draws miss with 0.0163, 6 with 0.0054
    assert.equal(samplesForDetection({segmentCount: 21, fakedCount: 10, target: 0.99}), 7)
    assert.throws(() => samplesForDetection({segmentCount: 4, fakedCount: 4, target: 0.9}), /fakedCount: expected an integer in \[1, 3\], got 4/)
  })
})
