import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {runGensyn} from '../helpers/cli.js'
import {writeOneEachScenario} from '../helpers/oneEachScenario.js'

type SweepJson = {
  id: string
  dir: string
  seed: number
  command: string
  ran: string[]
  skipped: string[]
  cells: {cell: {id: string; settings: Record<string, unknown>; seed: number}; runId: string; result: string; metrics: Record<string, number | null> | null}[]
  groups: {settings: Record<string, unknown>; runs: number; metrics: Record<string, {mean: number; n: number} | null>}[]
  files: {markdown: string; json: string; charts: string[]}
}

describe('gensyn devnet sweep (real devnets): a 2 x 2 grid, its summary and charts, --compare on its runs, --resume', function () {
  this.timeout(600_000)
  let root: string
  let scenario: string

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gensyn-sweep-'))
    scenario = await writeOneEachScenario(root)
  })
  after(() => rm(root, {recursive: true, force: true}))

  it('refuses a --set path the scenario does not have in one line (exit 2), before any devnet starts', async () => {
    const stateDir = path.join(root, 'refused')
    const run = await runGensyn(['devnet', 'sweep', '--scenario', scenario, '--set', 'protocol.taxBps=100,500', '--set', 'chain.blockTimes=1,2', '--state-dir', stateDir])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim(), 'Error: --set chain.blockTimes=1: chain: Unrecognized key: "blockTimes"')
    assert.equal(existsSync(stateDir), false, 'something was started for a refused sweep')
  })

  it('runs every cell on its own devnet, writes the table and a chart per figure, and its runs compare; a rerun resumes with nothing left to run', async () => {
    const stateDir = path.join(root, 'state')
    const sets = ['--set', 'protocol.taxBps=100,500', '--set', 'chain.challengeWindow=2,3']
    const run = await runGensyn(['devnet', 'sweep', '--scenario', scenario, ...sets, '--parallel', '2', '--seed', '11', '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 0, `sweep failed:\n${run.stderr}\n${run.stdout}`)
    const sweep = JSON.parse(String(run.stdout)) as SweepJson
    assert.equal(sweep.seed, 11)
    assert.deepEqual(sweep.cells.map(({cell, result}) => [cell.id, cell.settings, result]), [
      ['c1-r1', {'protocol.taxBps': 100, 'chain.challengeWindow': 2}, 'ok'],
      ['c2-r1', {'protocol.taxBps': 100, 'chain.challengeWindow': 3}, 'ok'],
      ['c3-r1', {'protocol.taxBps': 500, 'chain.challengeWindow': 2}, 'ok'],
      ['c4-r1', {'protocol.taxBps': 500, 'chain.challengeWindow': 3}, 'ok'],
    ])
    assert.deepEqual(sweep.ran.sort(), ['c1-r1', 'c2-r1', 'c3-r1', 'c4-r1'])
    // One repeat: every cell runs with the same seed, so every run has the same keys.
    assert.equal(new Set(sweep.cells.map(({cell}) => cell.seed)).size, 1)
    assert.equal(sweep.groups.length, 4)
    for (const group of sweep.groups) {
      assert.equal(group.runs, 1)
      for (const figure of ['honestProfit', 'price', 'gasPerTask', 'timePerTask']) assert.ok(group.metrics[figure] && group.metrics[figure].n === 1, `no ${figure} for ${JSON.stringify(group.settings)}`)
      assert.ok(group.metrics.honestProfit!.mean > 0, 'the honest actors were not paid')
    }
    assert.equal(path.dirname(sweep.files.markdown), path.join(stateDir, 'sweeps', sweep.id))
    const markdown = await readFile(sweep.files.markdown, 'utf8')
    assert.match(markdown, /^\| protocol\.taxBps \| chain\.challengeWindow \| runs \| detection rate \(% caught\) \| cheater profit/m)
    assert.match(markdown, /^\| 500 \| 3 \| 1 \| - \| - \| \d/m)
    assert.equal(sweep.files.charts.length, 7)
    for (const chart of sweep.files.charts) {
      assert.ok(markdown.includes(`](charts/${path.basename(chart)})`), `sweep.md does not embed ${path.basename(chart)}`)
      assert.match(await readFile(chart, 'utf8'), /^<svg /)
    }
    assert.match(await readFile(path.join(path.dirname(sweep.files.markdown), 'charts', 'price.svg'), 'utf8'), /protocol\.taxBps/)

    // Every cell is a run folder like any other: listed, and two of them compare.
    const list = await runGensyn(['devnet', 'runs', 'list', '--state-dir', stateDir, '--json'])
    assert.deepEqual((JSON.parse(String(list.stdout)) as {id: string}[]).map((entry) => entry.id).sort(), sweep.cells.map((cell) => cell.runId).sort())
    const out = path.join(root, 'compare')
    const compare = await runGensyn(['devnet', 'report', '--compare', sweep.cells[0]!.runId, sweep.cells[3]!.runId, '--state-dir', stateDir, '--out', out, '--json'])
    assert.equal(compare.exitCode, 0, String(compare.stderr))
    const comparison = JSON.parse(String(compare.stdout)) as {a: {id: string}; b: {id: string}; files: {markdown: string}}
    assert.deepEqual([comparison.a.id, comparison.b.id], [sweep.cells[0]!.runId, sweep.cells[3]!.runId])
    assert.match(await readFile(comparison.files.markdown, 'utf8'), /tasks settled/)

    // --resume finds the sweep, has nothing left to run, and writes its summary again.
    const resumed = await runGensyn(['devnet', 'sweep', '--resume', '--json', '--state-dir', stateDir])
    assert.equal(resumed.exitCode, 0, String(resumed.stderr))
    const again = JSON.parse(String(resumed.stdout)) as SweepJson
    assert.deepEqual([again.id, again.ran, again.skipped.length, again.groups], [sweep.id, [], 4, sweep.groups])
  })
})
