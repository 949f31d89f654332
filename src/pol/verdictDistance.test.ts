import assert from 'node:assert/strict'

import {nonFiniteDistance} from './distances/parameterDistances.js'
import {toFixedPoint, verdictDistance} from './verdictDistance.js'

describe('verdictDistance', () => {
  it('converts to 1e18 fixed point without float rounding', () => {
    assert.equal(toFixedPoint(0), 0n)
    assert.equal(toFixedPoint(1), 10n ** 18n)
    assert.equal(toFixedPoint(0.5), 5n * 10n ** 17n)
    assert.equal(toFixedPoint(1.25e-8), 125n * 10n ** 8n)
    assert.equal(toFixedPoint(3e-19), 0n)
    assert.throws(() => toFixedPoint(Number.NaN), /finite/)
    assert.throws(() => toFixedPoint(-1), /finite/)
  })

  it('takes the largest l-infinity distance over the replayed segments', () => {
    const segment = (linf: number) => ({distances: {whole: {l1: 9, l2: 9, linf, cosine: 9}, perTensor: []}})
    assert.equal(verdictDistance({segments: [segment(0), segment(0.25), segment(0.125)]} as never), 25n * 10n ** 16n)
    assert.equal(verdictDistance({segments: []}), 0n)
    // NaN weights in a committed checkpoint: the saturated distance fits the contract's uint256
    assert.equal(verdictDistance({segments: [segment(0.5), segment(nonFiniteDistance)]} as never), 2n ** 256n - 1n)
  })
})
