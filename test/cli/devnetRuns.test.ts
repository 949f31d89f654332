import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {runGensyn} from '../helpers/cli.js'
import {writeRunFolders} from '../helpers/runFolders.js'

const smoke = '2026-11-27T06-00-00Z-smoke'
const colluding = '2026-11-27T07-00-00Z-colluding'

describe('gensyn devnet runs list / report RUN / report --compare (the built CLI, run folders from real reports)', function () {
  this.timeout(120_000)
  let stateDir: string

  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-run-history-'))
    await writeRunFolders(stateDir, [
      {id: smoke, report: 'smoke', startedAt: '2026-11-27T06:00:00.000Z', endedAt: '2026-11-27T06:02:00.000Z'},
      {id: colluding, report: 'colluding', startedAt: '2026-11-27T07:00:00.000Z', endedAt: '2026-11-27T07:05:00.000Z'},
    ])
  })
  after(() => rm(stateDir, {recursive: true, force: true}))

  it('lists the runs newest first (--json) and as a table', async () => {
    const json = await runGensyn(['devnet', 'runs', 'list', '--state-dir', stateDir, '--json'])
    assert.equal(json.exitCode, 0, String(json.stderr))
    const runs = JSON.parse(String(json.stdout)) as {id: string; scenario: string; result: string; tasks: {settled: number; total: number}; wallSeconds: number}[]
    assert.deepEqual(
      runs.map(({id, scenario, result, tasks, wallSeconds}) => ({id, scenario, result, tasks, wallSeconds})),
      [
        {id: colluding, scenario: 'colluding', result: 'ok', tasks: {settled: 1, total: 1}, wallSeconds: 300},
        {id: smoke, scenario: 'smoke', result: 'ok', tasks: {settled: 1, total: 1}, wallSeconds: 120},
      ],
    )
    const table = await runGensyn(['devnet', 'runs', 'list', '--state-dir', stateDir])
    assert.equal(table.exitCode, 0, String(table.stderr))
    const lines = String(table.stdout).trim().split('\n')
    assert.match(lines[0]!, /^ID\s+STARTED\s+SCENARIO\s+RESULT\s+TASKS SETTLED\s+WALL\s+MONEY CONSERVED$/)
    assert.match(lines[1]!, new RegExp(`^${colluding}\\s+2026-11-27 07:00:00\\s+colluding\\s+ok\\s+1/1\\s+300 s\\s+yes$`))
  })

  it('renders the latest run again into its own folder', async () => {
    const run = await runGensyn(['devnet', 'report', 'latest', '--state-dir', stateDir, '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const result = JSON.parse(String(run.stdout)) as {source: string; run: string; ok: boolean; files: {markdown: string; html: string}}
    assert.equal(result.source, 'run')
    assert.equal(result.run, colluding)
    assert.equal(result.ok, true)
    assert.equal(path.dirname(result.files.markdown), path.join(stateDir, 'runs', colluding))
    assert.match(await readFile(result.files.markdown, 'utf8'), /^# Devnet report: colluding$/m)
    assert.equal(result.files.html, path.join(stateDir, 'runs', colluding, 'report.html'))
    assert.match(await readFile(result.files.html, 'utf8'), /<title>Devnet report: colluding<\/title>/)
  })

  it('compares two runs: the table printed, compare.md, compare.json and overlaid charts written', async () => {
    const out = path.join(stateDir, 'smoke-vs-colluding')
    const run = await runGensyn(['devnet', 'report', '--compare', '2026-11-27T06', colluding, '--state-dir', stateDir, '--out', out])
    assert.equal(run.exitCode, 0, String(run.stderr))
    assert.equal(String(run.stderr), '')
    const stdout = String(run.stdout)
    assert.match(stdout, new RegExp(`^A: ${smoke}\nB: ${colluding}\n`))
    assert.match(stdout, /^slashes\s+0\s+2\s+\+2$/m)
    assert.match(stdout, /^wall time \(s\)\s+120\s+300\s+\+180 \(\+150%\)$/m)
    const comparison = JSON.parse(await readFile(path.join(out, 'compare.json'), 'utf8')) as {a: {id: string}; b: {id: string}; figures: {name: string; difference: number | null}[]}
    assert.equal(comparison.a.id, smoke)
    assert.equal(comparison.figures.find((figure) => figure.name === 'disputes')!.difference, 1)
    assert.match(await readFile(path.join(out, 'compare.md'), 'utf8'), /!\[Price over time, both runs\]\(charts\/price\.svg\)/)
    assert.match(await readFile(path.join(out, 'charts', 'gas.svg'), 'utf8'), /^<svg /)
  })

  it('fails in one line, exit 2, naming the argument, for a run that is not there', async () => {
    const run = await runGensyn(['devnet', 'report', 'no-such-run', '--state-dir', stateDir])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stdout), '')
    assert.equal(
      String(run.stderr).trim(),
      `Error: RUN: no run "no-such-run" in ${path.join(stateDir, 'runs')}; expected a run id from \`gensyn devnet runs list\`, a unique prefix of one, latest, or a path`,
    )
    const compare = await runGensyn(['devnet', 'report', '--compare', smoke, '--state-dir', stateDir])
    assert.equal(compare.exitCode, 2)
    assert.match(String(compare.stderr).trim(), /^Error: --compare: expected two runs, e\.g\. `gensyn devnet report --compare RUN RUN`[^\n]*$/)
  })
})
