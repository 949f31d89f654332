import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {runCommand} from '@oclif/test'

import {strategyNames} from '../../src/adversary/strategies.js'
import {economicsDefaults, jobEconomics} from '../../src/economics/index.js'
import {loadJobSpec} from '../../src/ml/spec/loadJobSpec.js'
import {repoRoot, runGensyn} from '../helpers/cli.js'

const fixtureJobs = readdirSync(path.join(repoRoot, 'fixtures/jobs')).filter((file) => file.endsWith('.yaml'))

describe('gensyn economics', () => {
  it('prints the table for every fixture job: a row per strategy, amounts in ETH', async () => {
    for (const file of fixtureJobs) {
      const {stdout, error} = await runCommand(['economics', '--job', `fixtures/jobs/${file}`], {root: repoRoot})
      assert.equal(error, undefined, file)
      for (const strategy of [...strategyNames, 'lazy verifier', 'colluding pair']) assert.match(stdout, new RegExp(`^${strategy} +\\d\\.\\d\\d .* -?\\d+\\.\\d{4} ETH`, 'm'), `${file}: ${strategy}`)
      assert.match(stdout, /^STRATEGY +COMPUTE +P\(VERIFIER\) +MEASURED/m)
    }
  })

  it('--json gives the exact values the library computes, with --set applied', async () => {
    const {stdout, error} = await runCommand(['economics', '--job', 'fixtures/jobs/smoke-mlp.yaml', '--set', 'whistleblowers.count=0', '--set', 'protocol.solverStake=0.5', '--json'], {root: repoRoot})
    assert.equal(error, undefined)
    const out = JSON.parse(stdout) as {rows: {strategy: string; caught: number; expectedProfit: number}[]; params: {protocol: {solverStake: number}}}
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const expected = jobEconomics(spec, {...economicsDefaults(), whistleblowers: {...economicsDefaults().whistleblowers, count: 0}, protocol: {...economicsDefaults().protocol, solverStake: 0.5}})
    assert.equal(out.params.protocol.solverStake, 0.5)
    assert.deepEqual(
      out.rows.map((row) => [row.strategy, row.caught, row.expectedProfit]),
      expected.rows.map((row) => [row.strategy, row.caught, row.expectedProfit]),
    )
  })

  it('a bad --set is one line naming the field, exit 2', async () => {
    const run = await runGensyn(['economics', '--job', 'fixtures/jobs/smoke-mlp.yaml', '--set', 'protocol.forcedErrorBps=-1'])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim(), 'Error: protocol.forcedErrorBps: expected an integer in [0, 10000], got -1')
    const unknown = await runGensyn(['economics', '--job', 'fixtures/jobs/smoke-mlp.yaml', '--set', 'market.fee=1'])
    assert.equal(unknown.exitCode, 2)
    assert.match(String(unknown.stderr).trim(), /^Error: market\.fee: expected one of protocol\.solverStake, [^\n]*$/)
  })

  it('--sweep writes the expected-profit curves as SVG', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-economics-'))
    try {
      const out = path.join(dir, 'stake.svg')
      const {stdout, error} = await runCommand(['economics', '--job', 'fixtures/jobs/sums-transformer.yaml', '--sweep', 'protocol.verifierStake=0:3:7', '--out', out, '--json'], {root: repoRoot})
      assert.equal(error, undefined)
      const result = JSON.parse(stdout) as {sweep: {points: {value: number}[]; chart: string}}
      assert.deepEqual(result.sweep.points.map((point) => point.value), [0, 0.5, 1, 1.5, 2, 2.5, 3])
      const svg = await readFile(out, 'utf8')
      assert.match(svg, /^<svg/)
      assert.match(svg, /lazy verifier/)
      assert.match(svg, /protocol\.verifierStake/)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
