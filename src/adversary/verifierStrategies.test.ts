import assert from 'node:assert/strict'

import {AdversaryInputError} from './errors.js'
import {describeVerifierStrategy, parseVerifierStrategyName, skipsReplay, uncheckedReport, verifierStrategyNames} from './verifierStrategies.js'

describe('verifier strategies', () => {
  const partner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const other = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

  it('lazy never replays; colluding skips only its partners (addresses compared case-insensitively); honest always replays', () => {
    assert.equal(skipsReplay('lazy', other, []), true)
    assert.equal(skipsReplay('colluding', partner.toLowerCase() as `0x${string}`, [partner]), true)
    assert.equal(skipsReplay('colluding', other, [partner]), false)
    assert.equal(skipsReplay('honest', partner, [partner]), false)
  })

  it('refuses an unknown strategy in one line naming the valid ones (exit code 2)', () => {
    assert.throws(
      () => parseVerifierStrategyName('sloppy'),
      (error: AdversaryInputError) =>
        error instanceof AdversaryInputError && error.exitCode === 2 && error.shortMessage === 'verifier strategy: expected one of honest, lazy, colluding, got "sloppy"',
    )
    for (const name of verifierStrategyNames) assert.ok(describeVerifierStrategy(name).endsWith.length > 0)
  })

  it("an unchecked report says it replayed nothing, and whose proof it waved through", () => {
    const report = uncheckedReport('lazy', `0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`)
    assert.deepEqual({accepted: report.accepted, replayed: report.replayed, segments: report.segments}, {accepted: true, replayed: false, segments: []})
    assert.match(report.reason, /without replaying/)
  })
})
