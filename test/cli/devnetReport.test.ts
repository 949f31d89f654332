import assert from 'node:assert/strict'
import {copyFile, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {XMLValidator} from 'fast-xml-parser'

import {repoRoot, runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'

type Result = {source: 'chain' | 'file'; ok: boolean; failures: string[]; files: {json: string; markdown: string; html: string; charts: string[]}}

const chartFiles = ['balances.svg', 'timeline.svg', 'training.svg', 'detection.svg', 'gas.svg', 'price.svg', 'whistleblowers.svg']

async function assertReportFolder(result: Result, dir: string): Promise<string> {
  assert.equal(path.dirname(result.files.markdown), dir)
  const markdown = await readFile(result.files.markdown, 'utf8')
  assert.deepEqual(result.files.charts.map((file) => path.relative(dir, file)).sort(), chartFiles.map((file) => `charts/${file}`).sort())
  // report.html beside it: the same report, every chart live in the page (src/sim/report/html).
  assert.equal(result.files.html, path.join(dir, 'report.html'))
  const html = await readFile(result.files.html, 'utf8')
  for (const file of chartFiles) assert.ok(html.includes(`<div class="chart" id="chart-${file.replace('.svg', '')}"></div>`), `report.html has no ${file}`)
  for (const file of chartFiles) {
    assert.ok(markdown.includes(`](charts/${file})`), `report.md does not embed ${file}`)
    const svg = await readFile(path.join(dir, 'charts', file), 'utf8')
    assert.equal(XMLValidator.validate(svg), true, `${file} is not well-formed`)
    assert.match(svg, /^<svg /)
  }
  return markdown
}

describe('gensyn devnet report (the built CLI)', function () {
  this.timeout(120_000)
  let dir: string

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-report-'))
  })
  afterEach(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('renders report.md and every chart again from a real report.json (the colluding run)', async () => {
    await copyFile(path.join(repoRoot, 'test/fixtures/reports/colluding.json'), path.join(dir, 'report.json'))
    const out = path.join(dir, 'out')
    const run = await runGensyn(['devnet', 'report', '--state-dir', dir, '--out', out, '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const result = JSON.parse(String(run.stdout)) as Result
    assert.equal(result.source, 'file')
    assert.equal(result.ok, true)
    const markdown = await assertReportFolder(result, out)
    assert.match(markdown, /^# Devnet report: colluding$/m)
    assert.match(markdown, /^\| solver: skip-steps \| cheater-1 \| 1 \| 1 \| 0 \| 0 \| whistleblower-1 \|$/m)
    assert.deepEqual(JSON.parse(await readFile(result.files.json, 'utf8')), JSON.parse(await readFile(path.join(dir, 'report.json'), 'utf8')))
    const timeline = await readFile(path.join(out, 'charts', 'timeline.svg'), 'utf8')
    assert.match(timeline, />task 1</)
    assert.match(timeline, />challenge window</)
  })

  it('fails in one line when there is neither a devnet nor a report', async () => {
    const run = await runGensyn(['devnet', 'report', '--state-dir', dir])
    assert.notEqual(run.exitCode, 0)
    assert.equal(String(run.stderr).trim(), `Error: --state-dir: no running devnet and no report.json in ${dir} (start one with gensyn devnet up)`)
  })

  it('fails in one line on a report.json that is not a report', async () => {
    await writeFile(path.join(dir, 'report.json'), JSON.stringify({tasks: 'none'}))
    const run = await runGensyn(['devnet', 'report', '--state-dir', dir])
    assert.equal(run.exitCode, 2)
    const lines = String(run.stderr).trim().split('\n')
    assert.equal(lines.length, 1, String(run.stderr))
    assert.match(lines[0]!, /report\.json: expected a devnet report, scenario: /)
  })

  describe('against a running chain (real anvil, deployed contracts)', () => {
    let devnet: LocalDevnet
    before(async () => {
      devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1})
    })
    after(() => devnet?.stop())

    it('reads the report from the chain now', async () => {
      const run = await runGensyn(['devnet', 'report', '--state-dir', devnet.stateDir, '--out', dir, '--json'])
      assert.equal(run.exitCode, 0, String(run.stderr))
      const result = JSON.parse(String(run.stdout)) as Result
      assert.equal(result.source, 'chain')
      assert.equal(result.ok, true, result.failures.join('; '))
      await assertReportFolder(result, dir)
      const report = JSON.parse(await readFile(result.files.json, 'utf8')) as {conservation: {ok: boolean}; accounts: {name: string}[]; history: {gas: {phase: string; gas: string}[]; balances: {samples: unknown[]}}}
      assert.equal(report.conservation.ok, true)
      assert.deepEqual(report.accounts.map((account) => account.name), ['treasury', 'submitter-1', 'solver-account-2', 'verifier-account-3'])
      // The deployment's set-up transactions (setMarket, setGame, ...) are on the chain: gas `other`.
      assert.ok(BigInt(report.history.gas.find((entry) => entry.phase === 'other')!.gas) > 0n)
      assert.ok(report.history.balances.samples.length >= 1)
    })
  })
})
