import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {lastJsonLine, runGensyn} from '../helpers/cli.js'
import {writeOneEachScenario} from '../helpers/oneEachScenario.js'

type Report = {
  ok: boolean
  seed?: number
  failures: string[]
  tasks: {id: string; status: string; verdict: string; solver: string; verifier: string; proofRoot: string; escrow: string}[]
  accounts: {name: string; address: string; feesEarned: string; slashed: string; slashGains: string; jackpotWon: string; timeoutSlashed: string}[]
}

/** What a replay must repeat exactly: every task's outcome and every actor's payouts (gas, and so balances, may differ). */
function outcome(report: Report) {
  return {
    tasks: report.tasks.map(({id, status, verdict, solver, verifier, proofRoot, escrow}) => ({id, status, verdict, solver, verifier, proofRoot, escrow})),
    payouts: report.accounts.map(({name, address, feesEarned, slashed, slashGains, jackpotWon, timeoutSlashed}) => ({name, address, feesEarned, slashed, slashGains, jackpotWon, timeoutSlashed})),
  }
}

describe('devnet up --seed (real devnets): one seed replays a run', function () {
  this.timeout(600_000)
  let root: string
  let scenario: string

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gensyn-seed-'))
    scenario = await writeOneEachScenario(root)
  })
  after(() => rm(root, {recursive: true, force: true}))

  async function run(name: string, seed?: number): Promise<{report: Report; stateDir: string}> {
    const stateDir = path.join(root, name)
    const result = await runGensyn(['devnet', 'up', '--scenario', scenario, '--until-settled', '--json', '--state-dir', stateDir, ...(seed === undefined ? [] : ['--seed', String(seed)])])
    assert.equal(result.exitCode, 0, `devnet ${name} failed:\n${result.stderr}\n${result.stdout}`)
    const report = lastJsonLine<Report>(String(result.stdout))
    assert.equal(report.ok, true, report.failures.join('; '))
    return {report, stateDir}
  }

  it('two runs with one seed make the same tasks, verdicts and payouts; a run without one records the seed it picked, and other keys', async () => {
    const first = await run('first', 4242)
    const second = await run('second', 4242)
    assert.equal(first.report.seed, 4242)
    assert.equal(first.report.tasks.length, 1)
    assert.ok(BigInt(first.report.accounts.find((account) => account.name === 'solver-1')!.feesEarned) > 0n, 'the solver was not paid')
    assert.deepEqual(outcome(second.report), outcome(first.report))

    const unseeded = await run('unseeded')
    assert.equal(typeof unseeded.report.seed, 'number', 'a run without --seed must record the seed it picked')
    assert.notEqual(unseeded.report.seed, 4242)
    const record = JSON.parse(await readFile(path.join(unseeded.stateDir, 'last-run.json'), 'utf8')) as {scenario: {seed: number}; parameters: {seed: number}}
    assert.equal(record.scenario.seed, unseeded.report.seed)
    assert.equal(record.parameters.seed, unseeded.report.seed)
    assert.match(await readFile(path.join(unseeded.stateDir, 'report.md'), 'utf8'), new RegExp(`--seed ${unseeded.report.seed}\``))
    const addresses = (report: Report) => report.accounts.map((account) => account.address)
    for (const address of addresses(unseeded.report)) assert.ok(!addresses(first.report).includes(address), `${address} is in both runs: the keys did not change with the seed`)
  })
})
