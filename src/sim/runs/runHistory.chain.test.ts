import assert from 'node:assert/strict'
import {mkdir, mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {XMLValidator} from 'fast-xml-parser'

import {writeRunFolders} from '../../../test/helpers/runFolders.js'
import {InvalidInputError} from '../../errors/base.js'
import {compareRuns} from './compareRuns.js'
import {listRuns} from './listRuns.js'
import {readRun} from './readRun.js'
import {resolveRun} from './resolveRun.js'
import {writeComparison} from './writeComparison.js'

const smoke = '2026-11-27T06-00-00Z-smoke'
const colluding = '2026-11-27T07-00-00Z-colluding'
const failed = '2026-11-27T08-00-00Z-smoke'
const partial = '2026-11-27T09-00-00Z-colluding'
const running = '2026-11-27T10-00-00Z-smoke'

describe('run history (run folders built from real reports)', () => {
  let stateDir: string
  const runDir = (id: string) => path.join(stateDir, 'runs', id)

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-runs-'))
    await writeRunFolders(stateDir, [
      {id: smoke, report: 'smoke', startedAt: '2026-11-27T06:00:00.000Z', endedAt: '2026-11-27T06:02:00.000Z', parameters: {backend: 'wasm', untilSettled: true, timeoutSeconds: 600}},
      // An older run: no run.json, so no wall time; its start and scenario come from the folder's name.
      {id: colluding, report: 'colluding'},
      {id: failed, report: 'smoke', patch: {ok: false, failures: ['timed out after 600 s']}, startedAt: '2026-11-27T08:00:00.000Z', endedAt: '2026-11-27T08:10:00.000Z'},
      {id: partial, report: 'colluding', patch: {ok: false, failures: ['the chain died'], partial: {reason: 'the chain died: anvil exited', chainRead: false}}, startedAt: '2026-11-27T09:00:00.000Z'},
      {id: running, startedAt: '2026-11-27T10:00:00.000Z'},
    ])
  })
  afterEach(() => rm(stateDir, {recursive: true, force: true}))

  describe('listRuns', () => {
    it('lists every run folder newest first, with its result, tasks, wall time and conservation', async () => {
      const runs = await listRuns(stateDir)
      assert.deepEqual(
        runs.map(({id, result, reason, tasks, wallSeconds, conservationOk}) => ({id, result, reason, tasks, wallSeconds, conservationOk})),
        [
          {id: running, result: 'no report', reason: 'no report.json (still running, or stopped before writing one)', tasks: null, wallSeconds: null, conservationOk: null},
          {id: partial, result: 'partial', reason: 'the chain died: anvil exited', tasks: {settled: 1, total: 1}, wallSeconds: null, conservationOk: null},
          {id: failed, result: 'FAILED', reason: 'timed out after 600 s', tasks: {settled: 1, total: 1}, wallSeconds: 600, conservationOk: true},
          {id: colluding, result: 'ok', reason: null, tasks: {settled: 1, total: 1}, wallSeconds: null, conservationOk: true},
          {id: smoke, result: 'ok', reason: null, tasks: {settled: 1, total: 1}, wallSeconds: 120, conservationOk: true},
        ],
      )
      const older = runs.find((run) => run.id === colluding)!
      assert.equal(older.startedAt, '2026-11-27T07:00:00Z')
      assert.equal(older.scenario, 'colluding')
    })

    it('says what is wrong with a report.json that is not a report', async () => {
      await writeRunFolders(stateDir, [{id: '2026-11-27T11-00-00Z-smoke', report: 'smoke', patch: {tasks: 'none'}}])
      const [newest] = await listRuns(stateDir)
      assert.equal(newest!.result, 'no report')
      assert.match(newest!.reason!, /report\.json: expected a devnet report, tasks: /)
    })

    it('lists nothing for a state dir without runs, and fails in one line for a state dir that is not there', async () => {
      const empty = path.join(stateDir, 'empty')
      await mkdir(empty)
      assert.deepEqual(await listRuns(empty), [])
      await assert.rejects(listRuns(path.join(stateDir, 'missing')), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError)
        assert.equal(error.message, `--state-dir: no folder ${path.join(stateDir, 'missing')} (expected a devnet state dir, where \`gensyn devnet up\` keeps runs/)`)
        return true
      })
    })
  })

  describe('resolveRun', () => {
    const resolve = (run: string) => resolveRun({stateDir, run})
    const rejectsWith = (run: string, message: RegExp) =>
      assert.rejects(resolve(run), (error: unknown) => error instanceof InvalidInputError && message.test(error.message) && !error.message.includes('\n'))

    it('takes an id, a unique prefix, latest (the newest run with a report) and a path', async () => {
      assert.equal(await resolve(colluding), runDir(colluding))
      assert.equal(await resolve('2026-11-27T07'), runDir(colluding))
      assert.equal(await resolve('latest'), runDir(partial))
      assert.equal(await resolve(runDir(smoke)), runDir(smoke))
      assert.equal(await resolve(path.join(runDir(smoke), 'report.json')), runDir(smoke))
    })

    it('fails in one line naming RUN for an ambiguous prefix, an unknown run, a file that is not a report and an empty name', async () => {
      await rejectsWith('2026-11-27T0', /^RUN: "2026-11-27T0" is the start of 4 runs \(2026-11-27T09-00-00Z-colluding, 2026-11-27T08-00-00Z-smoke, 2026-11-27T07-00-00Z-colluding, and 1 more\); expected a unique prefix$/)
      await rejectsWith('2025', /^RUN: no run "2025" in .*runs; expected a run id from `gensyn devnet runs list`, a unique prefix of one, latest, or a path$/)
      await rejectsWith(path.join(runDir(smoke), 'run.json'), /^RUN: .*run\.json is a file; expected a run folder or its report\.json$/)
      await rejectsWith(' ', /^RUN: empty; expected a run id/)
      await rejectsWith(stateDir, /^RUN: .* is a folder without report\.json or run\.json; expected a run folder \(under .*runs\)$/)
    })

    it('fails in one line for latest when no run has a report yet', async () => {
      const only = await mkdtemp(path.join(tmpdir(), 'gensyn-runs-'))
      await writeRunFolders(only, [{id: running, startedAt: '2026-11-27T10:00:00.000Z'}])
      try {
        await assert.rejects(resolveRun({stateDir: only, run: 'latest', field: '--compare'}), /^InvalidInputError: --compare: no run with a report in .* for `latest`/)
      } finally {
        await rm(only, {recursive: true, force: true})
      }
    })
  })

  describe('compareRuns', () => {
    it('puts the headline figures side by side with B - A', async () => {
      const comparison = compareRuns(await readRun(runDir(smoke)), await readRun(runDir(failed)))
      const figure = (name: string) => comparison.figures.find((candidate) => candidate.name === name)!
      assert.equal(comparison.a.id, smoke)
      assert.equal(comparison.b.id, failed)
      assert.deepEqual(figure('every check held').text, {a: 'yes', b: 'no', difference: 'differs'})
      assert.deepEqual(figure('wall time').text, {a: '120', b: '600', difference: '+480 (+400%)'})
      assert.equal(figure('wall time per settled task').b, 600)
      assert.deepEqual(figure('gas: total').text, {a: '2,075,779', b: '2,075,779', difference: 'same'})
    })

    it('differences a clean run and a run with a cheater, and keeps strategies only one run played', async () => {
      const comparison = compareRuns(await readRun(runDir(smoke)), await readRun(runDir(colluding)))
      const figure = (name: string) => comparison.figures.find((candidate) => candidate.name === name)!
      assert.deepEqual(figure('slashes'), {name: 'slashes', unit: 'count', a: 0, b: 2, difference: 2, text: {a: '0', b: '2', difference: '+2'}})
      assert.deepEqual(figure('disputes').text, {a: '0', b: '1', difference: '+1'})
      assert.deepEqual(figure('gas: challenge/dispute').text, {a: '0', b: '2,351,181', difference: '+2,351,181'})
      assert.deepEqual(figure('gas: total').text, {a: '2,075,779', b: '6,288,415', difference: '+4,212,636 (+202.9%)'})
      assert.deepEqual(figure('chain time per settled task').text, {a: '16', b: '69', difference: '+53 (+331.3%)'})
      assert.deepEqual(figure('price at end').text, {a: '8660.6822', b: '5362.8103', difference: '-3297.8718 (-38.1%)'})
      // The older colluding run has no run.json: no wall time, said as `-` rather than 0.
      assert.deepEqual(figure('wall time').text, {a: '120', b: '-', difference: '-'})
      assert.deepEqual(figure('detection: solver: skip-steps').text, {a: '-', b: '100% (1 of 1 caught)', difference: '-'})
      assert.deepEqual(figure('detection: solver: honest').text, {a: '0% (0 of 1 caught)', b: '0% (0 of 1 caught)', difference: 'same'})
      // B's own rows sit with the other detection rows, before conservation.
      const names = comparison.figures.map((candidate) => candidate.name)
      const detection = names.flatMap((name, index) => (name.startsWith('detection: ') ? [index] : []))
      assert.equal(detection.length, 5)
      assert.equal(detection.at(-1)! - detection[0]!, 4)
      assert.equal(names.at(-1), 'money conserved')
    })

    it('leaves conservation unknown for a run whose chain was gone', async () => {
      const comparison = compareRuns(await readRun(runDir(colluding)), await readRun(runDir(partial)))
      assert.deepEqual(comparison.figures.find((figure) => figure.name === 'money conserved')!.text, {a: 'yes', b: '-', difference: '-'})
    })
  })

  describe('writeComparison', () => {
    it('writes compare.md, compare.json and charts with both runs overlaid', async () => {
      const out = path.join(stateDir, 'compare')
      const {comparison, files} = await writeComparison(await readRun(runDir(smoke)), await readRun(runDir(colluding)), out)
      assert.deepEqual(JSON.parse(await readFile(files.json, 'utf8')), JSON.parse(JSON.stringify(comparison)))
      const markdown = await readFile(files.markdown, 'utf8')
      assert.ok(markdown.includes(`- A: \`${smoke}\` (${runDir(smoke)}); backend wasm, until settled, timeout 600 s\n- B: \`${colluding}\` (${runDir(colluding)})\n`), markdown.slice(0, 400))
      assert.match(markdown, /^\| slashes \| 0 \| 2 \| \+2 \|$/m)
      assert.match(markdown, /^\| gas: total \(gas\) \| 2,075,779 \| 6,288,415 \| \+4,212,636 \(\+202\.9%\) \|$/m)
      assert.deepEqual(files.charts.map((file) => path.relative(out, file)), ['charts/price.svg', 'charts/gas.svg', 'charts/detection.svg'])
      for (const chart of files.charts) {
        assert.ok(markdown.includes(`](${path.relative(out, chart)})`), `compare.md does not embed ${chart}`)
        const svg = await readFile(chart, 'utf8')
        assert.equal(XMLValidator.validate(svg), true, `${chart} is not well-formed`)
        assert.ok(svg.includes(`>A: ${smoke}<`) && svg.includes(`>B: ${colluding}<`), `${chart} does not label both runs`)
      }
      const price = await readFile(path.join(out, 'charts', 'price.svg'), 'utf8')
      // One line per run: B is dashed.
      assert.equal(price.match(/stroke-dasharray="6,3"/g)?.length, 2)
      const gas = await readFile(path.join(out, 'charts', 'gas.svg'), 'utf8')
      assert.match(gas, />challenge\/dispute</)
    })
  })
})
