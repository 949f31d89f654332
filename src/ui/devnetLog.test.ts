import assert from 'node:assert/strict'

import {segmentOutcome} from './devnetLog.js'

describe('segmentOutcome', () => {
  it('tells a bit-for-bit replay from one within the tolerance-mode thresholds and from a mismatch', () => {
    assert.equal(segmentOutcome({match: true, hashMatch: true}), 'matches')
    assert.equal(segmentOutcome({match: true}), 'matches', 'events from before hashMatch was reported')
    assert.equal(segmentOutcome({match: true, hashMatch: false}), 'within the thresholds')
    assert.equal(segmentOutcome({match: false, hashMatch: false}), 'DIFFERS')
  })
})
