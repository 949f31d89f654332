import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {writeRunFolders} from '../../../test/helpers/runFolders.js'
import {readRun} from '../runs/readRun.js'
import {loadScenario} from '../scenario.js'
import {latestSweep, openSweep, pendingCells} from './openSweep.js'
import {cellOutcome, summarizeSweep} from './summarizeSweep.js'
import {cellPaths} from './sweepPaths.js'
import type {SweepAxis} from './types.js'
import {writeSweep} from './writeSweep.js'

describe('sweep folders: a rerun resumes an unfinished sweep, and the summary is read from the run folders (real reports)', function () {
  this.timeout(60_000)
  let stateDir: string
  const axes: SweepAxis[] = [
    {path: 'protocol.taxBps', values: [100, 500]},
    {path: 'chain.challengeWindow', values: [2, 3]},
  ]

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-sweep-folders-'))
  })
  afterEach(() => rm(stateDir, {recursive: true, force: true}))

  it('plans a new sweep, resumes it while a cell has no complete run, and starts a new one for another grid', async () => {
    const scenario = await loadScenario('colluding')
    const first = await openSweep(stateDir, {scenario, axes, repeat: 1})
    assert.equal(first.resumed, false)
    assert.deepEqual(first.plan.cells.map((cell) => cell.id), ['c1-r1', 'c2-r1', 'c3-r1', 'c4-r1'])
    assert.deepEqual(JSON.parse(await readFile(path.join(first.dir, 'plan.json'), 'utf8')), JSON.parse(JSON.stringify(first.plan)))
    const runId = (cell: string) => path.basename(cellPaths(stateDir, first.id, cell).runDir)
    const done = {startedAt: '2026-11-27T06:00:00.000Z', endedAt: '2026-11-27T06:02:00.000Z'}
    await writeRunFolders(stateDir, [
      {id: runId('c1-r1'), report: 'colluding', ...done},
      {id: runId('c2-r1'), report: 'smoke', ...done},
      {id: runId('c3-r1'), report: 'colluding', ...done},
      // Cut short: a partial report is not a complete run.
      {id: runId('c4-r1'), report: 'colluding', patch: {ok: false, partial: {reason: 'interrupted (Ctrl-C or q) before every job settled', chainRead: true}}, ...done},
    ])
    const again = await openSweep(stateDir, {scenario, axes, repeat: 1})
    assert.deepEqual({id: again.id, resumed: again.resumed, seed: again.plan.seed}, {id: first.id, resumed: true, seed: first.plan.seed})
    assert.deepEqual((await pendingCells(stateDir, again)).map((cell) => cell.id), ['c4-r1'])
    assert.equal((await latestSweep(stateDir)).id, first.id)
    // Another seed, or another grid, is another sweep.
    const reseeded = await openSweep(stateDir, {scenario, axes, repeat: 1, seed: first.plan.seed + 1})
    assert.equal(reseeded.resumed, false)
    assert.notEqual(reseeded.id, first.id)
    const other = await openSweep(stateDir, {scenario, axes: [axes[0]!], repeat: 1})
    assert.equal(other.resumed, false)
    assert.equal((await latestSweep(stateDir)).id, other.id)
  })

  it('summarizes the runs: figures per combination, spread over repeats, partial runs left out; writes sweep.md, sweep.json and a chart per figure', async () => {
    const scenario = await loadScenario('colluding')
    const sweep = await openSweep(stateDir, {scenario, axes: [axes[0]!], repeat: 2, seed: 3})
    const runId = (cell: string) => path.basename(cellPaths(stateDir, sweep.id, cell).runDir)
    const done = {startedAt: '2026-11-27T06:00:00.000Z', endedAt: '2026-11-27T06:02:00.000Z'}
    await writeRunFolders(stateDir, [
      {id: runId('c1-r1'), report: 'colluding', ...done},
      {id: runId('c1-r2'), report: 'smoke', ...done},
      {id: runId('c2-r1'), report: 'colluding', ...done},
      {id: runId('c2-r2'), report: 'colluding', patch: {ok: false, partial: {reason: 'the chain died: anvil killed', chainRead: false}}, ...done},
    ])
    const outcomes = await Promise.all(sweep.plan.cells.map(async (cell) => cellOutcome(cell, await readRun(cellPaths(stateDir, sweep.id, cell.id).runDir))))
    assert.deepEqual(outcomes.map((outcome) => outcome.result), ['ok', 'ok', 'ok', 'partial'])
    const summary = summarizeSweep(sweep.plan, outcomes)
    assert.deepEqual(summary.groups.map((group) => [group.settings, group.runs]), [[{'protocol.taxBps': 100}, 2], [{'protocol.taxBps': 500}, 1]])
    const [both, one] = summary.groups
    // colluding: the cheat was caught; smoke has no adversary, so only one of the two repeats measures detection.
    assert.equal(both!.metrics.detectionRate?.n, 1)
    assert.equal(both!.metrics.timePerTask?.n, 2)
    const times = outcomes.slice(0, 2).map((outcome) => outcome.metrics!.timePerTask!)
    assert.deepEqual([both!.metrics.timePerTask!.min, both!.metrics.timePerTask!.max], [Math.min(...times), Math.max(...times)])
    assert.equal(one!.metrics.timePerTask?.sd, null)
    const files = await writeSweep(sweep.dir, summary, {id: sweep.id, command: 'gensyn devnet sweep …'})
    assert.equal(files.charts.length, 7)
    for (const chart of files.charts) assert.match(await readFile(chart, 'utf8'), /^<svg /)
    const markdown = await readFile(files.markdown, 'utf8')
    assert.match(markdown, /^\| protocol\.taxBps \| runs \| detection rate \(% caught\) \|/m)
    assert.match(markdown, new RegExp(`\\| c2-r2 \\| 500 \\| \\d+ \\| partial: the chain died: anvil killed \\| \`${runId('c2-r2')}\` \\|`))
    const json = JSON.parse(await readFile(files.json, 'utf8')) as {seed: number; groups: unknown[]; cells: unknown[]}
    assert.deepEqual([json.seed, json.groups.length, json.cells.length], [3, 2, 4])
  })
})
