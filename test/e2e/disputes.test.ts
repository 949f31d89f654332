import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {lastJsonLine, runGensyn} from '../helpers/cli.js'
import {processesMatching} from '../helpers/processes.js'

type Account = {name: string; role: string; strategy?: string; slashed: string; slashGains: string; jackpotWon: string; balanceBefore: string; balanceAfter: string; stakeBefore: string; stakeAfter: string}
type Dispute = {id: string; kind: string; prover: string; challenger: string; outcome: string; reason: string; rounds: number; gasUsed: string; seconds: number; question: string}
type Report = {
  ok: boolean
  failures: string[]
  tasks: {status: string; verdict: string; attempts: number; testAccuracy: number | null}[]
  accounts: Account[]
  disputes: Dispute[]
  slashes: {account: string; winner: string | null; amount: string}[]
  jackpot: {paidOut: string; payouts: {catcher: string; amount: string}[]}
  conservation: {ok: boolean}
}

const account = (report: Report, name: string): Account => {
  const found = report.accounts.find((candidate) => candidate.name === name)
  assert.ok(found, `no actor ${name} in ${report.accounts.map((candidate) => candidate.name).join(', ')}`)
  return found
}

/** Every honest solver, verifier and whistleblower kept all of its stake. */
function assertNoHonestSlashed(report: Report): void {
  const honest = report.accounts.filter((candidate) => candidate.strategy === 'honest')
  assert.ok(honest.length > 0)
  for (const actor of honest) assert.equal(actor.slashed, '0', `honest ${actor.name} was slashed`)
}

/**
 * Each adversary of docs/adversaries.md ends as the protocol promises, on a real devnet: real anvil, the
 * contracts, and every actor its own `gensyn` process training and replaying real MNIST models.
 */
describe('devnet adversaries: disputes, slashing, jackpot (real devnet)', function () {
  this.timeout(900_000)
  let stateDir: string

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-disputes-'))
  })
  afterEach(async () => {
    assert.deepEqual(processesMatching(stateDir), [], 'processes left behind')
    await rm(stateDir, {recursive: true, force: true})
  })

  async function runScenario(name: string): Promise<Report> {
    const run = await runGensyn(['devnet', 'up', '--scenario', `fixtures/scenarios/${name}.yaml`, '--until-settled', '--json', '--state-dir', stateDir])
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.ok, true, `${name}: ${report.failures.join('; ')}\n${String(run.stderr).slice(-2000)}`)
    assert.equal(run.exitCode, 0)
    assert.equal(report.conservation.ok, true)
    assert.equal(report.tasks[0]?.status, 'Settled')
    assert.equal(report.tasks[0]?.verdict, 'accepted')
    assertNoHonestSlashed(report)
    return report
  }

  it('forced error: the rejecting verifier wins the jackpot and the solver is not penalised', async () => {
    const report = await runScenario('forced-error')
    assert.ok(BigInt(account(report, 'verifier-1').jackpotWon) > 0n)
    assert.equal(account(report, 'solver-1').slashed, '0')
    assert.equal(report.disputes.length, 0)
  })

  it('whistleblowers: one catches the forced error a lazy verifier accepted and wins the jackpot; the lazy verifier is slashed; a griefer challenges honest work and loses its deposit to the solver', async () => {
    const report = await runScenario('whistleblowers')
    const lazy = account(report, 'lazy-verifier-1')
    assert.ok(BigInt(lazy.slashed) > 0n)
    assert.ok(BigInt(account(report, 'whistleblower-1').jackpotWon) > 0n)
    const catchers = ['whistleblower-1', 'griefer-1'].map((name) => BigInt(account(report, name).slashGains))
    assert.ok(catchers.some((gain) => gain > 0n), 'no catcher got a share of the lazy verifier stake')
    const lost = report.disputes.filter((dispute) => dispute.challenger === 'griefer-1' && dispute.outcome === 'ProverWon')
    assert.ok(lost.length >= 1, `the griefer lost no dispute: ${JSON.stringify(report.disputes.map((dispute) => [dispute.challenger, dispute.outcome]))}`)
    assert.ok(BigInt(account(report, 'griefer-1').slashed) > 0n)
    assert.ok(BigInt(account(report, 'solver-1').slashGains) > 0n, 'the solver got no winner share of the griefer deposit')
  })

  it('colluding solver and verifier: caught by a whistleblower, both slashed; the task is redone honestly', async () => {
    const report = await runScenario('colluding')
    assert.ok(BigInt(account(report, 'cheater-1').slashed) > 0n)
    assert.ok(BigInt(account(report, 'colluding-verifier-1').slashed) > 0n)
    const [dispute] = report.disputes
    assert.equal(dispute?.outcome, 'ChallengerWon')
    assert.equal(dispute?.challenger, 'whistleblower-1')
    assert.ok(BigInt(account(report, 'whistleblower-1').slashGains) > 0n)
    assert.ok((report.tasks[0]?.attempts ?? 0) >= 2)
  })

  it('staller: a cheater that disputes its rejection and stops answering loses by timeout', async () => {
    const report = await runScenario('staller')
    const [dispute] = report.disputes
    assert.equal(dispute?.kind, 'rejection')
    assert.equal(dispute?.prover, 'cheater-1')
    assert.equal(dispute?.outcome, 'ChallengerWon')
    assert.equal(dispute?.reason, 'Timeout')
    assert.ok(BigInt(account(report, 'cheater-1').slashed) > 0n)
  })
})
