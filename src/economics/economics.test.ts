import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import path from 'node:path'

import {loadJobSpec} from '../ml/spec/loadJobSpec.js'
import {detectionProbability} from '../plan/detectionProbability.js'
import {
  activeWhistleblowers,
  economicsDefaults,
  EconomicsInputError,
  jobEconomics,
  measuredDetection,
  parseSweep,
  setEconomicsParam,
  strategyDetection,
  sweepEconomics,
  whistleblowerDecision,
} from './index.js'

const jobsDir = path.resolve('fixtures/jobs')
const fixtureJobs = readdirSync(jobsDir).filter((file) => file.endsWith('.yaml'))

describe('economics of cheating', () => {
  it('the shipped defaults make every strategy pay less than honest play on every fixture job', async () => {
    assert.ok(fixtureJobs.length >= 9)
    for (const file of fixtureJobs) {
      const report = jobEconomics(await loadJobSpec(path.join(jobsDir, file)), economicsDefaults())
      assert.equal(report.rows.length, 10, file)
      for (const row of report.rows.filter((candidate) => candidate.strategy !== 'honest'))
        assert.ok(row.expectedProfit < 0, `${file}: ${row.strategy} expects ${row.expectedProfit / 1e18} ETH against honest play`)
    }
  })

  it('smoke-mlp forge, verifiers alone: P(caught) 2/3, compute 0.51, profit = saved - P × (net reward + stake)', async () => {
    const spec = await loadJobSpec(path.join(jobsDir, 'smoke-mlp.yaml'))
    const params = setEconomicsParam(economicsDefaults(), 'whistleblowers.count=0')
    const report = jobEconomics(spec, params)
    const forge = report.rows.find((row) => row.strategy === 'forge')
    assert.ok(forge)
    assert.equal(report.activeWhistleblowers, 0)
    assert.ok(Math.abs(forge.caught - 2 / 3) < 1e-12)
    assert.equal(forge.computeFraction, 0.51)
    // 734 work units at 1e13 wei, taxed 5 %; the honest cost is the reward (costShare 1)
    const reward = 734 * 1e13
    const expected = 0.49 * reward - (2 / 3) * (reward * 0.95 + 1e18)
    assert.ok(Math.abs(forge.expectedProfit - expected) < 1e3, `${forge.expectedProfit} vs ${expected}`)
    // the forfeited reward alone outweighs what forge saves here: no stake is needed (break-even 0)
    assert.equal(forge.breakEvenStake, 0)
    // where compute costs three times the price, a stake is needed, and the break-even one makes the profit zero
    const dear = setEconomicsParam(params, 'costShare=3')
    const stake = jobEconomics(spec, dear).rows.find((row) => row.strategy === 'forge')?.breakEvenStake as number
    assert.ok(stake > 0)
    const atBreakEven = jobEconomics(spec, setEconomicsParam(dear, `protocol.solverStake=${stake / 1e18}`)).rows.find((row) => row.strategy === 'forge')
    assert.ok(Math.abs(atBreakEven?.expectedProfit ?? 1) < 1e4)
  })

  it('the measured detection rates agree with the plan within 3 binomial standard deviations', () => {
    for (const [strategy, measured] of Object.entries(measuredDetection)) {
      const rate = measured.rejected / measured.decided
      const spread = 3 * Math.sqrt((measured.predicted * (1 - measured.predicted)) / measured.decided)
      assert.ok(Math.abs(rate - measured.predicted) <= spread + 1e-12, `${strategy}: ${rate} vs ${measured.predicted} ± ${spread}`)
    }
  })

  it("noise's figure is a lower bound of its exact detection over every choice of perturbed checkpoints", () => {
    for (let n = 2; n <= 9; n++) {
      const k = Math.ceil(n / 2)
      for (let s = 1; s <= n; s++) {
        let total = 0
        let count = 0
        for (const perturbed of subsets(n, k)) {
          const faked = new Set<number>()
          for (const c of perturbed) {
            faked.add(c - 1)
            if (c < n) faked.add(c)
          }
          total += faked.has(n - 1) ? 1 : detectionProbability({segmentCount: n, sampled: s, faked: faked.size})
          count++
        }
        const schedule = Array.from({length: n + 1}, (_, i) => i * 10)
        const bound = strategyDetection('noise', {segmentCount: n, schedule}, s, n).verifier
        assert.ok(bound <= total / count + 1e-12, `n ${n} s ${s}: ${bound} > ${total / count}`)
        // and forge, the weakest cheat that sizes targetDetection, is never caught more often than noise
        assert.ok(strategyDetection('forge', {segmentCount: n, schedule}, s, n).verifier <= bound + 1e-12)
      }
    }
  })

  it('--set and --sweep reject an unknown path or a value out of range, naming the field', () => {
    assert.throws(() => setEconomicsParam(economicsDefaults(), 'protocol.stake=1'), (error: Error) => error instanceof EconomicsInputError && error.message.startsWith('protocol.stake: expected one of'))
    assert.throws(() => setEconomicsParam(economicsDefaults(), 'protocol.forcedErrorBps=20000'), /^EconomicsInputError: protocol.forcedErrorBps: expected an integer in \[0, 10000\], got 20000/)
    assert.throws(() => setEconomicsParam(economicsDefaults(), 'costShare=lots'), /costShare: expected a number, got "lots"/)
    assert.throws(() => setEconomicsParam(economicsDefaults(), 'costShare'), /--set: expected path=value/)
    assert.throws(() => parseSweep('protocol.solverStake=0:1:1'), /protocol.solverStake: expected a count of points in \[2, 1000\]/)
    assert.throws(() => parseSweep('protocol.taxBps=0:20000:3'), /protocol.taxBps: expected an integer in \[0, 10000\], got 20000/)
    assert.deepEqual(parseSweep('verification.segments=1:4:7').values, [1, 2, 3, 4])
  })

  it("a sweep of the verifier stake crosses zero where the lazy verifier's break-even stake says", async () => {
    const spec = await loadJobSpec(path.join(jobsDir, 'sums-transformer.yaml'))
    const params = setEconomicsParam(economicsDefaults(), 'protocol.jackpot=0')
    const lazy = jobEconomics(spec, params).rows.find((row) => row.strategy === 'lazy verifier')
    // a third of the training replayed (2 of 6 segments) at 0.3856 ETH, caught by 10 % forced errors
    const breakEven = (lazy?.breakEvenStake as number) / 1e18
    assert.ok(Math.abs(breakEven - (0.3856 / 3) / 0.1) < 1e-3, String(breakEven))
    const sweep = sweepEconomics(spec, params, parseSweep(`protocol.verifierStake=0:${2 * breakEven}:5`))
    const profits = sweep.points.map((point) => point.rows.find((row) => row.strategy === 'lazy verifier')?.expectedProfit as number)
    assert.ok((profits[0] as number) > 0 && (profits[4] as number) < 0, String(profits))
    assert.ok(Math.abs(profits[2] as number) < 1e4)
  })
})

describe('whistleblower payout rule', () => {
  const inputs = {jackpot: 10n ** 18n, jackpotCap: 10n ** 18n, forcedErrorBps: 1000, checkCost: 3n * 10n ** 16n, maxActive: 10n}
  it('joins while its share of the jackpot covers a re-check, leaves when too many others check', () => {
    // 0.1 ETH of jackpot per task: three whistleblowers get 0.033 each (covers 0.03), four get 0.025 (does not)
    assert.equal(whistleblowerDecision({...inputs, active: 2n, isActive: false}).action, 'join')
    assert.equal(whistleblowerDecision({...inputs, active: 3n, isActive: false}).action, 'stay out')
    assert.equal(whistleblowerDecision({...inputs, active: 3n, isActive: true}).action, 'stay')
    assert.equal(whistleblowerDecision({...inputs, active: 4n, isActive: true}).action, 'leave')
    assert.equal(activeWhistleblowers(inputs, 10n), 3n)
    assert.equal(activeWhistleblowers(inputs, 2n), 2n)
  })
  it('with no cost it keeps the old threshold rule: join below maxActive, leave above it', () => {
    const free = {...inputs, checkCost: 0n, maxActive: 3n}
    assert.equal(whistleblowerDecision({...free, active: 2n, isActive: false}).action, 'join')
    assert.equal(whistleblowerDecision({...free, active: 3n, isActive: false}).action, 'stay out')
    assert.equal(whistleblowerDecision({...free, active: 3n, isActive: true}).action, 'stay')
    assert.equal(whistleblowerDecision({...free, active: 4n, isActive: true}).action, 'leave')
  })
})

function* subsets(n: number, k: number, from = 1, chosen: number[] = []): Generator<number[]> {
  if (chosen.length === k) {
    yield chosen
    return
  }
  for (let c = from; c <= n; c++) yield* subsets(n, k, c + 1, [...chosen, c])
}
