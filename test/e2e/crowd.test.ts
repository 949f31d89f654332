import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {DevnetReport} from '../../src/sim/buildReport.js'
import {runGensyn} from '../helpers/cli.js'
import {processesMatching} from '../helpers/processes.js'

/**
 * Scale mode on a real devnet (issue 20, point 5): a crowd's actors share two `gensyn devnet crowd-worker`
 * processes and play synthetic tasks against the real contracts on a real anvil, through the real dispute game.
 */
describe('devnet crowd: lightweight actors sharing processes (real devnet)', function () {
  this.timeout(300_000)
  let stateDir: string

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-crowd-'))
  })
  afterEach(async () => {
    assert.deepEqual(processesMatching(stateDir), [], 'processes left behind')
    await rm(stateDir, {recursive: true, force: true})
  })

  it('settles every task, catches every wrong proof, conserves money and reports lifecycles per minute and memory per actor', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'test/fixtures/crowd/crowd-small.yaml', '--until-settled', '--state-dir', stateDir])
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as DevnetReport
    assert.equal(report.ok, true, `${report.failures.join('; ')}\n${String(run.stdout).slice(-3000)}\n${String(run.stderr).slice(-2000)}`)
    assert.equal(run.exitCode, 0)
    const crowd = report.crowd!
    assert.equal(crowd.actors.total, 2 + 6 + 3 + 3)
    assert.equal(crowd.tasks.posted, 16)
    assert.equal(crowd.tasks.settled, 16)
    assert.equal(crowd.tasks.accepted, 16, 'a rejected task reopens and an honest solver trains it')
    assert.ok(crowd.lifecycles.perMinute > 0 && crowd.lifecycles.seconds > 0)
    assert.equal(crowd.memory.peakRssMiB.length, 2, 'one summary per process')
    assert.ok(crowd.memory.peakRssMiB.every((mib) => mib > 20), crowd.memory.peakRssMiB.join(', '))
    // Every segment is replayed: each wrong proof is rejected by the sampling verifier or caught by a whistleblower.
    assert.ok(crowd.cheats.proofs > 0, 'the cheaters committed no wrong proof')
    assert.equal(crowd.cheats.rejected + crowd.cheats.caughtByWhistleblowers, crowd.cheats.proofs, JSON.stringify({cheats: crowd.cheats, stats: crowd.stats}))
    assert.equal(crowd.cheats.paid, 0)
    for (const dispute of report.disputes) {
      assert.match(dispute.prover, /^crowd-cheater-/)
      assert.match(dispute.challenger, /^crowd-whistleblower-/)
      assert.deepEqual([dispute.outcome, dispute.reason], ['ChallengerWon', 'Timeout'])
    }
    // Each caught cheat cost its cheater its stake; no honest solver and no sampling verifier lost any.
    const slashed = report.slashes.map((slash) => slash.account)
    assert.equal(slashed.filter((name) => name.startsWith('crowd-cheater-')).length, crowd.cheats.proofs)
    assert.ok(slashed.every((name) => /^crowd-(cheater|lazy-verifier)-/.test(name)), slashed.join(', '))
    assert.equal(report.conservation.ok, true)
    assert.deepEqual(report.actors.map((actor) => [actor.name, actor.role, actor.exitCode]), [['crowd-1', 'crowd', 0], ['crowd-2', 'crowd', 0]])
    assert.match(String(run.stdout), /task lifecycles per minute: [\d.]+/)
  })

  it('runs beside real training: the real job is trained, verified and delivered, the crowd settles its own tasks', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'test/fixtures/crowd/crowd-mixed.yaml', '--until-settled', '--state-dir', stateDir])
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as DevnetReport
    assert.equal(report.ok, true, `${report.failures.join('; ')}\n${String(run.stderr).slice(-2000)}`)
    const real = report.tasks.filter((task) => task.fromScenario)
    assert.equal(real.length, 1)
    assert.equal(real[0]!.verdict, 'accepted')
    assert.ok(real[0]!.testAccuracy! >= 0.85, String(real[0]!.testAccuracy))
    assert.deepEqual([report.crowd!.tasks.posted, report.crowd!.tasks.settled], [8, 8])
    assert.equal(report.tasks.length, 9)
    assert.deepEqual(report.actors.map((actor) => actor.name).sort(), ['crowd-1', 'solver-1', 'submitter-1', 'verifier-1'])
  })

  it('refuses --state in one line: a crowd keeps nothing on disk to resume from', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'crowd', '--state', path.join(stateDir, 'chain.state'), '--state-dir', stateDir])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim(), 'Error: --state: a crowd scenario cannot be kept and resumed (its actors keep nothing on disk): run it without --state or --resume')
  })
})
