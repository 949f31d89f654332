import assert from 'node:assert/strict'

import {recommendedReplays, smallProfileNotice} from './smallProfileNotice.js'

describe('smallProfileNotice', () => {
  const replays = (n: number, exact: boolean) => Array.from({length: n}, () => ({exact}))

  it('names the count and the remedy when fewer than 200 replays differ from their reference', () => {
    assert.equal(
      smallProfileNotice([...replays(20, true), ...replays(20, false)]),
      'thresholds from 40 honest replays, fewer than 200: a rarer honest divergence can fall outside them (docs/verification.md); add --seeds',
    )
  })

  it('says nothing once the profile holds 200 replays', () => {
    assert.equal(smallProfileNotice(replays(recommendedReplays, false)), undefined)
    assert.equal(typeof smallProfileNotice(replays(recommendedReplays - 1, false)), 'string')
  })

  it('says nothing when every replay was bit-identical (one runtime: exact mode, no thresholds needed)', () => {
    assert.equal(smallProfileNotice(replays(4, true)), undefined)
  })
})
