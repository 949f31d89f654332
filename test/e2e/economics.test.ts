import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {economicsDefaults, jobEconomics, setEconomicsParam} from '../../src/economics/index.js'
import {loadJobSpec} from '../../src/ml/spec/loadJobSpec.js'
import type {DevnetReport} from '../../src/sim/buildReport.js'
import {repoRoot, runGensyn} from '../helpers/cli.js'

/**
 * `gensyn economics` against a devnet run of the same parameters (docs/economics.md, "Checked against a
 * devnet"): scenario `economics` has a forge cheater claim eight smoke-mlp tasks first, against verifiers
 * alone (no forced errors, no whistleblower). Each forged proof is a Bernoulli trial with the predicted
 * P(caught), so the measured rate and the cheater's money per attempt must lie within 3 binomial standard
 * deviations of the prediction for the attempts played. With 8 attempts that band is wide (±0.5 around 2/3):
 * it catches a model that is grossly wrong (a true rate below 0.17), not a small error.
 */
describe('gensyn economics against a devnet run (real devnet)', function () {
  this.timeout(900_000)

  it("a forge cheater's caught rate and its money per attempt are the prediction's, within the run-to-run spread", async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-economics-'))
    try {
      const run = await runGensyn(['devnet', 'up', '--scenario', 'fixtures/scenarios/economics.yaml', '--until-settled', '--json', '--state-dir', stateDir])
      const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as DevnetReport
      assert.equal(run.exitCode, 0, `devnet: ${report.failures.join('; ')}`)

      const row = report.history?.detection.find((candidate) => candidate.label === 'solver: forge')
      assert.ok(row, 'no forge row in the detection matrix')
      assert.equal(row.pending, 0)
      const plays = row.caught + row.notCaught
      assert.ok(plays >= 4, `the cheater played only ${plays} attempts`)
      const cheater = report.accounts.find((account) => account.strategy === 'forge')
      assert.ok(cheater)
      const rejected = report.tasks.flatMap((task) => task.rejections).filter((rejection) => rejection.solver.toLowerCase() === cheater.address.toLowerCase())
      assert.equal(rejected.length, row.caught, 'every catch is a rejection of its proof')

      // The same parameters: the run's protocol (no forced errors), no whistleblower, the price its claims paid.
      const accepted = report.tasks.filter((task) => task.verdict === 'accepted' && task.solver.toLowerCase() === cheater.address.toLowerCase())
      let params = setEconomicsParam(setEconomicsParam(economicsDefaults(), 'protocol.forcedErrorBps=0'), 'whistleblowers.count=0')
      if (accepted.length > 0) params = setEconomicsParam(params, `market.price=${accepted.reduce((sum, task) => sum + Number(task.ledger.price), 0) / accepted.length / 1e18}`)
      const prediction = jobEconomics(await loadJobSpec(path.join(repoRoot, 'fixtures/jobs/smoke-mlp.yaml')), params)
      const forge = prediction.rows.find((candidate) => candidate.strategy === 'forge')
      assert.ok(forge)
      const p = forge.caught
      assert.ok(Math.abs(p - 2 / 3) < 1e-12)
      const spread = Math.sqrt((p * (1 - p)) / plays)
      const rate = row.caught / plays
      assert.ok(Math.abs(rate - p) <= 3 * spread, `caught ${row.caught}/${plays} = ${rate}, predicted ${p} ± ${3 * spread}`)

      // On chain, an attempt pays the reward after tax when accepted and slashes the whole stake when caught.
      const stake = params.protocol.solverStake * 1e18
      for (const rejection of rejected) assert.equal(BigInt(rejection.slashed), BigInt(stake), 'each catch took exactly solverStake')
      const lost = rejected.reduce((sum, rejection) => sum + Number(rejection.slashed), 0)
      const perAttempt = (Number(cheater.feesEarned) - lost) / plays
      const predicted = (1 - p) * prediction.amounts.solverNet - p * stake
      const tolerance = 3 * (prediction.amounts.solverNet + stake) * spread
      assert.ok(Math.abs(perAttempt - predicted) <= tolerance, `per attempt ${perAttempt / 1e18} ETH, predicted ${predicted / 1e18} ± ${tolerance / 1e18}`)
    } finally {
      await rm(stateDir, {recursive: true, force: true})
    }
  })
})
