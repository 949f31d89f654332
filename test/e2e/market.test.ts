import assert from 'node:assert/strict'
import {mkdtemp, readFile, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {averageCheckpoints, checkpointHash, decodeCheckpoint, encodeCheckpoint} from '../../src/ml/checkpoint/index.js'
import {loadJobSpec} from '../../src/ml/spec/index.js'
import {trainJob} from '../../src/ml/train/index.js'
import type {DevnetReport} from '../../src/sim/buildReport.js'
import {createLocalStore} from '../../src/store/index.js'
import {runGensyn} from '../helpers/cli.js'
import {processesMatching} from '../helpers/processes.js'

/** Every task of the run is settled and its refund is its escrow less every payment out of it, to the wei. */
function assertEveryTaskSettledAndRefundedExactly(report: DevnetReport): void {
  assert.ok(report.tasks.length > 0)
  for (const task of report.tasks) {
    assert.equal(task.status, 'Settled', `task ${task.id} ended ${task.status}`)
    assert.equal(task.verdict, 'accepted')
    const {ledger} = task
    const paid = BigInt(ledger.solverPaid) + BigInt(ledger.verifierPaid) + BigInt(ledger.tax) + BigInt(ledger.fromEscrow)
    assert.ok(BigInt(ledger.solverPaid) > 0n, `task ${task.id}: the solver was not paid`)
    assert.equal(BigInt(ledger.refunded), BigInt(task.escrow) - paid, `task ${task.id}: refund`)
    assert.equal(ledger.balanced, true)
  }
  assert.equal(report.conservation.ok, true)
}

/**
 * The market of docs/market.md on a real devnet (real anvil, every actor its own `gensyn` process training
 * real MNIST models). Two runs cover the acceptance points of issue #5 between them: a 3-task split job with a
 * dropout solver (split, stacking, timeout, penalty, refunds) and a supply shock (price, joins and leaves,
 * chart, refunds).
 */
describe('devnet market: split jobs, dropouts, a supply shock and an honest market (real devnet)', function () {
  this.timeout(400_000)
  let stateDir: string

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-market-'))
  })
  afterEach(async () => {
    assert.deepEqual(processesMatching(stateDir), [], 'processes left behind')
    await rm(stateDir, {recursive: true, force: true})
  })

  async function runScenario(name: string): Promise<{report: DevnetReport; stdout: string}> {
    const run = await runGensyn(['devnet', 'up', '--scenario', `fixtures/scenarios/${name}.yaml`, '--until-settled', '--state-dir', stateDir])
    const stdout = String(run.stdout)
    // a devnet that ended without a report says why on stderr and in its actors' logs: keep both in the failure
    const reportText = await readFile(path.join(stateDir, 'report.json'), 'utf8').catch(async () => {
      const logs = await readdir(path.join(stateDir, 'logs')).catch(() => [] as string[])
      const tails = await Promise.all(logs.map(async (log) => `--- ${log}\n${(await readFile(path.join(stateDir, 'logs', log), 'utf8')).slice(-1500)}`))
      assert.fail(`${name}: devnet up exited ${run.exitCode} without report.json\nstderr: ${String(run.stderr).slice(-3000)}\nstdout: ${stdout.slice(-2000)}\n${tails.join('\n')}`)
    })
    const report = JSON.parse(reportText) as DevnetReport
    assert.equal(report.ok, true, `${name}: ${report.failures.join('; ')}\n${stdout.slice(-3000)}\n${String(run.stderr).slice(-2000)}`)
    assert.equal(run.exitCode, 0, String(run.stderr))
    return {report, stdout}
  }

  it('a dropout solver killed mid-task on a 3-task split job: timed out and slashed, every task settled, the final model the unsplit one', async () => {
    const {report, stdout} = await runScenario('dropout')

    // The split job: three tasks, each the next one's parent, all settled and refunded to the wei.
    assert.equal(report.tasks.length, 3)
    const [first, second, third] = report.tasks
    assert.deepEqual(
      report.tasks.map((task) => task.parentId),
      ['0', first!.id, second!.id],
    )
    assert.deepEqual(
      report.tasks.map((task) => task.totalSteps),
      ['100', '100', '100'],
    )
    assertEveryTaskSettledAndRefundedExactly(report)
    assert.ok((third!.testAccuracy ?? 0) >= 0.85, `test accuracy ${third!.testAccuracy}`)

    // The dropout: killed after its first stored checkpoint of the first task, timed out, slashed; the task
    // went back to the pool and an honest solver delivered it.
    assert.deepEqual(report.dropouts.map((dropout) => [dropout.actor, dropout.taskId]), [['dropout-1', first!.id]])
    const dropout = report.accounts.find((account) => account.name === 'dropout-1')
    assert.ok(dropout)
    assert.equal(dropout.timeouts, 1)
    assert.ok(BigInt(dropout.timeoutSlashed) > 0n)
    assert.equal(dropout.slashed, dropout.timeoutSlashed)
    assert.deepEqual(report.market.timeouts.map((timeout) => [timeout.taskId, timeout.solver]), [[first!.id, 'dropout-1']])
    assert.equal(first!.timeouts, 1)
    assert.equal(first!.claims, 2)
    assert.notEqual(first!.solver.toLowerCase(), dropout.address.toLowerCase())
    for (const account of report.accounts.filter((candidate) => candidate.strategy === 'honest')) assert.equal(account.slashed, '0', `${account.name} was slashed`)
    assert.match(stdout, /timeout {2}task \d+: dropout-1 missed its training deadline/)

    // Bit for bit the model a single task trains (docs/market.md, section 4).
    const job = await loadJobSpec('fixtures/scenarios/jobs/smoke-split.yaml')
    const unsplit = await trainJob({spec: {...job, split: undefined}, store: createLocalStore(path.join(stateDir, 'unsplit'))})
    assert.equal(third!.finalCheckpoint, unsplit.checkpoints.at(-1)?.hash)
  })

  it('a parallel split: 4 solvers train each round\'s shards, each round starts from the mean of the one before, the model is the last mean, and the report compares it with the sequential split', async () => {
    const {report} = await runScenario('parallel-split')
    assertEveryTaskSettledAndRefundedExactly(report)
    assert.equal(report.tasks.length, 3 + 8)
    const [sequential, parallel] = report.jobs ?? []
    assert.ok(sequential && parallel, 'two jobs in the report')
    assert.equal(sequential.tasks, 3)
    assert.equal(parallel.tasks, 8)
    assert.equal(parallel.shards, 4)
    for (const job of [sequential, parallel]) assert.ok((job.testAccuracy ?? 0) >= 0.85, `job ${job.index}: test accuracy ${job.testAccuracy}`)

    // Anyone can recompute each round's mean from its verified finals; the next round starts there.
    const store = createLocalStore(path.join(stateDir, 'store'))
    const rounds = parallel.rounds ?? []
    assert.equal(rounds.length, 2)
    for (const [r, round] of rounds.entries()) {
      const finals = round.taskIds.map((id) => report.tasks.find((task) => task.id === id)?.finalCheckpoint)
      assert.equal(new Set(finals).size, 4, `round ${r}: four different shard finals`)
      const mean = averageCheckpoints(await Promise.all(finals.map(async (hash) => decodeCheckpoint(await store.get(hash!)))))
      assert.equal(round.mean, checkpointHash(encodeCheckpoint(mean)), `round ${r}: the mean of its finals`)
      if (r > 0) assert.equal(round.start, rounds[r - 1]!.mean)
      const parents = round.taskIds.map((id) => report.tasks.find((task) => task.id === id)?.parentId)
      assert.deepEqual(parents, ['0', '0', '0', '0'], 'shard tasks name no parent: their spec names the start')
    }
    assert.equal(parallel.finalCheckpoint, rounds[1]!.mean)
    // More than one solver trained a round at once (the scenario has four).
    const solvers = new Set(rounds[0]!.taskIds.map((id) => report.tasks.find((task) => task.id === id)?.solver))
    assert.ok(solvers.size >= 2, `round 1 trained by ${solvers.size} solver(s)`)
    assert.equal(parallel.speedup?.over, 0)
    assert.equal(parallel.speedup?.ratio, sequential.wallSeconds! / parallel.wallSeconds!)
    assert.match(await readFile(path.join(stateDir, 'report.md'), 'utf8'), /\| 1 \| jobs\/parallel-split\.yaml \| 8 \(2 rounds x 4 shards\) \| accepted \| 0\.\d{4} \| [\d.]+ \| [\d.]+x over job 0 \|/)
  })

  it('a parallel split whose submitter is SIGKILLed mid-job: restarted with the tasks it had posted, it adopts them and goes on, and posts nothing twice', async () => {
    const scenario = path.join(stateDir, 'parallel-chaos.yaml')
    await writeFile(
      scenario,
      [
        'name: parallel-chaos',
        'description: the parallel split, its submitter killed once while it waits',
        'backend: wasm',
        'actors: {submitters: 1, solvers: 4, verifiers: 2}',
        `jobs: [{file: ${JSON.stringify(path.resolve('fixtures/scenarios/jobs/parallel-split.yaml'))}}]`,
        'chain: {blockTime: 0.25, challengeWindow: 2}',
        'protocol: {forcedErrorBps: 0, revealWindow: 1}',
        'chaos: {kills: 1, roles: [submitter], minGapSeconds: 14, maxGapSeconds: 14}',
        'expect: {verdict: accepted, minTestAccuracy: 0.85}',
        'timeoutSeconds: 300',
      ].join('\n'),
    )
    const run = await runGensyn(['devnet', 'up', '--scenario', scenario, '--until-settled', '--state-dir', stateDir])
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as DevnetReport
    assert.equal(report.ok, true, `${report.failures.join('; ')}\n${String(run.stderr).slice(-2000)}`)
    assert.deepEqual(report.crashes?.map((crash) => [crash.role, crash.cause, crash.restartedAfterMs !== null]), [['submitter', 'chaos', true]])
    assertEveryTaskSettledAndRefundedExactly(report)
    assert.equal(report.tasks.length, 8, 'the restarted submitter posted no task twice')
    // Killed while it waited on round 1 or 2: it came back with at least round 1's four tasks to adopt.
    const followed = /submitter-1: restarted, following tasks ([\d,]+) it had posted/.exec(String(run.stdout))
    assert.ok(followed, String(run.stdout).slice(-3000))
    assert.ok(followed[1]!.split(',').length >= 4, followed[1])
    const [job] = report.jobs ?? []
    assert.deepEqual(job?.rounds?.map((round) => round.taskIds.length), [4, 4])
    assert.equal(job?.finalCheckpoint, job?.rounds?.[1]?.mean)
    assert.ok((job?.testAccuracy ?? 0) >= 0.85, `test accuracy ${job?.testAccuracy}`)
  })

  it('a supply shock: cheap solvers leave, the price climbs until reserve solvers join, every task is served and refunded exactly, and the report charts the price', async () => {
    const {report, stdout} = await runScenario('supply-shock')
    assert.equal(report.tasks.length, 5)
    assertEveryTaskSettledAndRefundedExactly(report)

    const {market} = report
    assert.ok(market.shock, 'no solver left')
    assert.equal(market.shock.rose, true)
    assert.ok(BigInt(market.shock.maxAfter) > BigInt(market.shock.price))
    const offers = new Map(market.offers.map((offer) => [offer.solver, offer]))
    // The cheap solvers joined at the start and left; the reserves joined only once the price reached their ask.
    for (const name of ['solver-1', 'solver-2']) assert.ok((offers.get(name)?.leaves ?? 0) >= 1, `${name} never left`)
    for (const name of ['solver-3', 'solver-4']) {
      const joined = offers.get(name)?.events.find((event) => event.type === 'listed')
      assert.ok(joined, `${name} never joined`)
      assert.ok(joined.seconds > market.shock.seconds, `${name} joined before the shock`)
    }
    // The reserves served tasks after the shock, at a price at least their ask.
    const reserveAsk = 16_000_000_000_000n
    const served = report.tasks.filter((task) => BigInt(task.ledger.price) >= reserveAsk)
    assert.ok(served.length >= 1, 'no task was served at the reserve price')

    // The chart is in the text report, and the series in report.json has the samples and the controller's events.
    assert.match(stdout, /market price \(gwei per work unit\): start/)
    assert.match(stdout, /┤/)
    assert.match(stdout, /\^ a solver listed its offer \(joined\), v one withdrew it \(left\)/)
    assert.ok(market.series.some((point) => point.source === 'event'))
    assert.ok(market.series.some((point) => point.source === 'sample'))
    assert.doesNotMatch(stdout, /\r|\u001b\[/, 'carriage returns or escape codes in a piped log')
  })

  it('an honest market: five jobs from two submitters arrive over time, solvers with different asks serve them, nobody is slashed', async () => {
    const {report} = await runScenario('honest-market')
    assert.equal(report.tasks.length, 5)
    assertEveryTaskSettledAndRefundedExactly(report)
    assert.deepEqual(report.slashes, [])
    const submitters = new Set(report.tasks.map((task) => task.submitter.toLowerCase()))
    assert.equal(submitters.size, 2, 'both submitters posted jobs')
    const solvers = new Set(report.tasks.map((task) => task.solver.toLowerCase()))
    assert.ok(solvers.size >= 2, 'one solver served the whole market')
    // The jobs at 10 s and 20 s are claimed at a price the solvers' asks allow, never above the jobs' maxPrice.
    for (const task of report.tasks) assert.ok(BigInt(task.ledger.price) <= 20_000_000_000_000n && BigInt(task.ledger.price) >= 2_000_000_000_000n, `task ${task.id} price ${task.ledger.price}`)
  })
})
