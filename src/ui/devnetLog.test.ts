import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {repoRoot} from '../../test/helpers/cli.js'
import type {DevnetReport} from '../sim/buildReport.js'
import {STOPPED_BY_USER} from '../sim/report/types.js'
import {createDevnetLog, renderReport, segmentOutcome} from './devnetLog.js'

/** A real smoke run's report (test/fixtures/reports), cut short for `reason`. */
function cutShort(reason: string): DevnetReport {
  const report = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/reports/smoke.json'), 'utf8')) as DevnetReport
  return {...report, ok: false, failures: [...report.failures, reason], partial: {reason, chainRead: true}}
}

describe('renderReport: the verdict line', () => {
  it('a run the user stopped (Ctrl-C, q) is partial and not judged, not FAILED', () => {
    const text = renderReport(cutShort(STOPPED_BY_USER))
    assert.match(text, /scenario smoke: stopped by you \(Ctrl-C or q\) before every job settled; the report is partial/)
    assert.doesNotMatch(text, /FAILED/)
  })

  it('a run cut short by anything else FAILED, and says why', () => {
    const text = renderReport(cutShort('devnet stopped: solver-1 crashed 5 times'))
    assert.match(text, /scenario smoke FAILED:\n {2}devnet stopped: solver-1 crashed 5 times/)
  })
})

describe('segmentOutcome', () => {
  it('tells a bit-for-bit replay from one within the tolerance-mode thresholds and from a mismatch', () => {
    assert.equal(segmentOutcome({match: true, hashMatch: true}), 'matches')
    assert.equal(segmentOutcome({match: true}), 'matches', 'events from before hashMatch was reported')
    assert.equal(segmentOutcome({match: true, hashMatch: false}), 'within the thresholds')
    assert.equal(segmentOutcome({match: false, hashMatch: false}), 'DIFFERS')
  })
})

describe('createDevnetLog: actor lines', () => {
  const linesOf = (...events: [actor: string, role: string, event: Record<string, unknown>][]) => {
    const lines: string[] = []
    const log = createDevnetLog((line) => lines.push(line))
    for (const [actor, role, event] of events) log({type: 'actor', actor, role, event})
    return lines
  }

  it("tells a whistleblower's commitment to a challenge from a solver's commit of its proof (both are 'committed')", () => {
    const lines = linesOf(
      ['solver-1', 'solver', {type: 'committed', taskId: '1', checkpoints: 5, totalSteps: 200, trainingSeconds: 1.24, runtime: 'wasm(simd)'}],
      ['whistleblower-1', 'whistleblower', {type: 'committed', taskId: '1', index: '0', gasUsed: '61234'}],
    )
    assert.deepEqual(lines, [
      'solver-1     task 1: committed 5 checkpoints (200 steps) in 1.2 s (runtime wasm(simd))',
      'whistleblower-1 task 1: committed to a challenge (hidden until the window closes)',
    ])
  })

  it("says when a whistleblower's tolerance re-check found a segment within the thresholds, not bit for bit", () => {
    const lines = linesOf(['whistleblower-1', 'whistleblower', {type: 'segment', taskId: '2', segment: 1, startStep: 50, endStep: 100, match: true, hashMatch: false, seconds: 0.3}])
    assert.deepEqual(lines, ['whistleblower-1 task 2: segment 1 steps 50-100 within the thresholds'])
  })
})
