import assert from 'node:assert/strict'

import type {SweepEvent} from '../../sim/sweep/runSweep.js'
import type {CellOutcome} from '../../sim/sweep/summarizeSweep.js'
import type {SweepCell} from '../../sim/sweep/types.js'
import {applyDevnetEvent, createDashboardState} from './dashboardState.js'
import {layoutDashboard} from './layoutDashboard.js'
import {durationText} from './layoutSweep.js'
import {lineText} from './lines.js'
import {applySweepEvent, noteCellPhase, sweepCounts, type SweepProgress, sweepRemainingMs} from './sweepProgress.js'

const cells: SweepCell[] = [100, 500].flatMap((taxBps, index) =>
  [2, 3].map((window, repeat) => ({id: `c${index * 2 + repeat + 1}-r1`, settings: {'protocol.taxBps': taxBps, 'chain.challengeWindow': window}, repeat: 1, seed: 11})),
)
const planned: SweepEvent = {type: 'planned', id: '20261127-120000-one-each', dir: '/tmp/s', resumed: false, cells: 5, pending: 4, seed: 11, queue: cells}
const started = (index: number): SweepEvent => ({type: 'cell-started', cell: cells[index]!, position: index + 1, of: 4})
const finished = (index: number, result: CellOutcome['result'], reason: string | null = null): SweepEvent => ({
  type: 'cell-finished',
  outcome: {cell: cells[index]!, runId: `run-${index}`, runDir: `/tmp/run-${index}`, result, reason, metrics: null},
  position: index + 1,
  of: 4,
})

/** Seconds after the sweep's start, as wall-clock milliseconds. */
const at = (seconds: number) => 1_800_000_000_000 + seconds * 1000

function sweepAfter(events: [number, SweepEvent][], parallel = 2): SweepProgress {
  let progress: SweepProgress | undefined
  for (const [seconds, event] of events) progress = applySweepEvent(progress, event, at(seconds), parallel)
  assert.ok(progress)
  return progress
}

describe("the dashboard's sweep progress", () => {
  it('counts the cells done, running, queued and not ok as the sweep events come', () => {
    const progress = sweepAfter([
      [0, planned],
      [0, started(0)],
      [0, started(1)],
      [40, finished(0, 'ok')],
      [40, started(2)],
      [50, finished(1, 'FAILED', 'verdict: expected accepted, got rejected')],
    ])
    assert.deepEqual(sweepCounts(progress), {done: 2, running: 1, queued: 1, notOk: 1, total: 4})
    assert.equal(progress.skipped, 1, 'the fifth cell of the grid was complete before this invocation')
    assert.deepEqual(
      progress.cells.map((row) => [row.id, row.state, row.detail]),
      [
        ['c1-r1', 'ok', undefined],
        ['c2-r1', 'FAILED', 'verdict: expected accepted, got rejected'],
        ['c3-r1', 'running', 'starting'],
        ['c4-r1', 'queued', undefined],
      ],
    )
    noteCellPhase(progress, 'c3-r1', 'anvil on http://127.0.0.1:40000; deploying contracts')
    noteCellPhase(progress, 'c4-r1', 'a queued cell has no phase to show')
    assert.equal(progress.cells[2]!.detail, 'anvil on http://127.0.0.1:40000; deploying contracts')
    assert.equal(progress.cells[3]!.detail, undefined)
  })

  it('estimates the time left from the finished cells and how many run at once', () => {
    const early = sweepAfter([[0, planned], [0, started(0)], [0, started(1)]])
    assert.equal(sweepRemainingMs(early, at(10)), undefined, 'no estimate before a cell has finished')
    // Cells take 40 s and 60 s (mean 50 s). At 60 s: c3 has run 20 s (30 s left), c4 is queued (50 s), two at once.
    const progress = sweepAfter([[0, planned], [0, started(0)], [0, started(1)], [40, finished(0, 'ok')], [40, started(2)], [60, finished(1, 'ok')]])
    assert.equal(sweepRemainingMs(progress, at(60)), ((50 - 20) + 50) * 1000 / 2)
    const one = sweepAfter([[0, planned], [0, started(0)], [40, finished(0, 'ok')]], 1)
    assert.equal(sweepRemainingMs(one, at(40)), 3 * 40_000, 'three cells queued, one at a time')
  })

  it('draws the cells above the devnet of the one it follows, with its training curve, within 80x24', () => {
    const progress = sweepAfter([[0, planned], [0, started(0)], [0, started(1)], [40, finished(0, 'ok')], [40, started(2)], [65, finished(1, 'partial', 'stopped by you')]])
    const state = createDashboardState({scenario: 'one-each · cell c3-r1', stateDir: '/tmp/s/cells/c3-r1'})
    state.sweep = {progress, following: 'c3-r1'}
    const solve = (event: Record<string, unknown>) => applyDevnetEvent(state, {type: 'actor', actor: 'solver-1', role: 'solver', event: {role: 'solver', taskId: '1', ...event}})
    solve({type: 'claimed', claimBlock: '20', gasUsed: '289607', price: '10000000000000'})
    for (let step = 1; step <= 300; step++) {
      solve({type: 'progress', step, steps: 1500, from: 0, loss: 2.3 / Math.sqrt(step)})
      if (step % 100 === 0) solve({type: 'checkpoint', step, hash: `0x${'ab'.repeat(32)}`})
    }
    const lines = layoutDashboard(state, {columns: 80, rows: 24}, at(70)).map(lineText)
    assert.ok(lines.length <= 23, `${lines.length} rows`)
    for (const line of lines) assert.equal(line.length, 80, `a row of ${line.length} columns: ${JSON.stringify(line)}`)
    assert.match(lines[0]!, /^ gensyn devnet sweep · one-each · cell c3-r1 · no chain yet /)
    // 2 of 4 done (one not ok), 1 running, 70 s in; left: c3 30 s of a 52.5 s mean, c4 queued, two at once.
    assert.equal(lines[1], 'SWEEP  2/4 cells done (1 not ok) · 1 running · 1m10s · ~38s left · 1 done earli…')
    assert.match(lines[2]!, /^▶ c3-r1 +protocol\.taxBps=500 chain\.challengeWindow=2 \(repeat 1\) running 30s/)
    // 80 columns: the label gives way to the state and its time, the reason is cut.
    assert.match(lines[3]!, /^ {2}c2-r1 +protocol\.taxBps=100 chain\.challengeWindow=3 \(re\S*… partial in 1m05s…$/)
    assert.match(lines[4]!, /^ {2}c1-r1 .* ok in 40s/)
    assert.match(lines[5]!, /^ {2}c4-r1 .* queued/)
    const training = lines.findIndex((line) => line.startsWith('TRAINING'))
    assert.ok(training > 5, lines.join('\n'))
    assert.match(lines[training + 1]!, /^ {2}#1 +solver-1 +loss [▁▂▃▄▅▆▇█]{3} 0\.230 → 0\.133 · 3 ckpts · now 0\.133 at step 300/)
    assert.match(lines.at(-1)!, /^ q quit · n next cell /)
  })

  it('says how long a duration is in seconds, minutes or hours', () => {
    assert.deepEqual([0, 45_400, 185_000, 3_725_000].map(durationText), ['0s', '45s', '3m05s', '1h02m'])
  })
})
