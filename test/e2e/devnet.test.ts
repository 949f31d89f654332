import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import * as tf from '@tensorflow/tfjs'

import type {Hex} from 'viem'

import {decodeDataset} from '../../src/ml/data/datasetBlob.js'
import {decodeSafetensors} from '../../src/ml/export/safetensors.js'
import {loadLocalJob} from '../../src/ml/data/loadLocalJob.js'
import {isAlive} from '../../src/util/processLiveness.js'
import type {TrainingCurve} from '../../src/sim/report/types.js'
import {createLocalStore} from '../../src/store/createLocalStore.js'
import {lastJsonLine, repoRoot, runGensyn} from '../helpers/cli.js'
import {assertNoOrphans, commandLineOf, processesMatching, waitFor} from '../helpers/processes.js'

type Report = {
  ok: boolean
  tasks: {
    id: string
    status: string
    verdict: string
    solver: string
    attempts: number
    rejections: {solver: string; slashed: string}[]
    testAccuracy: number | null
    gasUsed: Record<string, string>
    seconds: Record<string, number>
  }[]
  accounts: {role: string; name: string; address: string; strategy?: string; balanceBefore: string; balanceAfter: string; stakeBefore: string; stakeAfter: string}[]
  conservation: {ok: boolean; totalBefore: string; totalAfter: string; gasFees: string}
  failures: string[]
  history: {curves: TrainingCurve[]}
}

async function runningProcesses(stateDir: string): Promise<{anvilPid?: number; actors: {name: string; pid?: number}[]} | undefined> {
  try {
    const processes = JSON.parse(await readFile(path.join(stateDir, 'processes.json'), 'utf8')) as {anvilPid?: number; actors: {name: string; pid?: number}[]}
    return processes.actors.length > 0 ? processes : undefined
  } catch {
    return undefined
  }
}


describe('gensyn devnet up (real anvil, real actor processes, real training)', function () {
  this.timeout(600_000)
  let stateDir: string

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-devnet-'))
  })
  afterEach(async () => {
    await rm(stateDir, {recursive: true, force: true})
  })

  it('settles the smoke scenario: accepted, accurate, money conserved, nothing left running', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'fixtures/scenarios/smoke.yaml', '--until-settled', '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 0, `devnet failed:\n${run.stderr}\n${run.stdout}`)
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.ok, true, report.failures.join('; '))
    assert.equal(report.tasks.length, 1)
    const [task] = report.tasks
    assert.equal(task!.status, 'Settled')
    assert.equal(task!.verdict, 'accepted')
    assert.ok(task!.testAccuracy !== null && task!.testAccuracy >= 0.85, `test accuracy ${task!.testAccuracy}`)
    for (const phase of ['submission', 'claim', 'commit', 'verification', 'settlement']) {
      assert.ok(BigInt(task!.gasUsed[phase]!) > 0n, `no gas recorded for ${phase}`)
    }
    assert.equal(report.conservation.ok, true)
    assert.ok(BigInt(report.conservation.gasFees) > 0n)
    const solverGain = report.accounts
      .filter((account) => account.role === 'solver')
      .some((account) => BigInt(account.balanceAfter) + BigInt(account.stakeAfter) > BigInt(account.balanceBefore) + BigInt(account.stakeBefore))
    assert.ok(solverGain, 'no solver ended richer: the reward was not paid')
    const saved = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as Report
    assert.deepEqual(saved, report)
    // report.md embeds the charts written beside it (docs/report.md).
    const markdown = await readFile(path.join(stateDir, 'report.md'), 'utf8')
    const html = await readFile(path.join(stateDir, 'report.html'), 'utf8')
    for (const chart of ['balances', 'timeline', 'training', 'detection', 'gas', 'price']) {
      assert.ok(markdown.includes(`](charts/${chart}.svg)`), `report.md does not embed ${chart}.svg`)
      assert.match(await readFile(path.join(stateDir, 'charts', `${chart}.svg`), 'utf8'), /^<svg /)
      assert.ok(html.includes(`<div class="chart" id="chart-${chart}"></div>`), `report.html has no ${chart} chart`)
    }
    // The training curve, read from the proof in the store: every checkpoint scored, the replays matched, and
    // its last point is the delivered model the submitter scored on its own.
    const [curve] = saved.history.curves
    assert.equal(saved.history.curves.length, 1)
    assert.equal(curve!.verdict, 'accepted')
    assert.deepEqual(curve!.points.map((point) => point.step), [0, 50, 100, 150, 200])
    assert.equal(curve!.points.at(-1)!.testAccuracy, task!.testAccuracy)
    assert.ok(curve!.replays.length >= 1 && curve!.replays.every((replay) => replay.match), JSON.stringify(curve!.replays))
    assert.equal(existsSync(path.join(stateDir, 'devnet.json')), false, 'a stale devnet.json outlived its chain')
    assertNoOrphans(stateDir)
  })

  it('settles a job on its own CSV data, named by short name: the store holds the exact bytes the spec hashes', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'weather-csv', '--until-settled', '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 0, `devnet failed:\n${run.stderr}\n${run.stdout}`)
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.ok, true, report.failures.join('; '))
    assert.equal(report.tasks[0]?.verdict, 'accepted')
    // 5 weather classes: the majority class (rain) is 44 % of the days
    assert.ok((report.tasks[0]?.testAccuracy ?? 0) >= 0.7, `test accuracy ${report.tasks[0]?.testAccuracy}`)
    assert.equal(report.conservation.ok, true)
    const local = await loadLocalJob('weather-csv')
    const data = 'source' in local.dataset ? (local.dataset.data as Hex) : undefined
    assert.ok(data)
    const published = decodeDataset(await createLocalStore(path.join(stateDir, 'store')).get(data))
    assert.deepEqual(published.classNames, ['drizzle', 'fog', 'rain', 'snow', 'sun'])
    assertNoOrphans(stateDir)
  })

  it('trains, verifies and settles the CNN job on the wasm backend', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'fixtures/scenarios/cnn.yaml', '--until-settled', '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 0, `devnet failed:\n${run.stderr}\n${run.stdout}`)
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.tasks[0]?.verdict, 'accepted')
    assert.ok((report.tasks[0]?.testAccuracy ?? 0) >= 0.85, `test accuracy ${report.tasks[0]?.testAccuracy}`)
    assert.equal(report.conservation.ok, true)
    assertNoOrphans(stateDir)
  })

  it('catches three kinds of cheating solver: each slashed, every task reopened, retrained honestly and settled, money conserved', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'fixtures/scenarios/cheaters.yaml', '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 0, `devnet failed:\n${run.stderr}\n${run.stdout}`)
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.ok, true, report.failures.join('; '))
    const honest = report.accounts.find((account) => account.role === 'solver' && account.strategy === 'honest')
    const cheaters = report.accounts.filter((account) => account.role === 'solver' && account.strategy !== 'honest')
    assert.ok(honest)
    assert.deepEqual(cheaters.map((cheater) => cheater.strategy).sort(), ['random-weights', 'skip-steps', 'wrong-data'])
    const cheaterAddresses = new Set(cheaters.map((cheater) => cheater.address.toLowerCase()))
    assert.equal(report.tasks.length, 3)
    for (const task of report.tasks) {
      assert.equal(task.verdict, 'accepted')
      assert.ok(task.rejections.length >= 1, `task ${task.id}: no cheater took it`)
      for (const rejection of task.rejections) assert.ok(cheaterAddresses.has(rejection.solver.toLowerCase()), `task ${task.id}: an honest proof was rejected`)
      assert.equal(task.attempts, task.rejections.length + 1)
      assert.equal(task.solver.toLowerCase(), honest.address.toLowerCase())
    }
    const net = (account: {balanceBefore: string; balanceAfter: string; stakeBefore: string; stakeAfter: string}) =>
      BigInt(account.balanceAfter) + BigInt(account.stakeAfter) - BigInt(account.balanceBefore) - BigInt(account.stakeBefore)
    for (const cheater of cheaters) {
      const slashed = report.tasks.flatMap((task) => task.rejections).filter((rejection) => rejection.solver.toLowerCase() === cheater.address.toLowerCase())
      assert.ok(slashed.length >= 1, `${cheater.name} was never caught`)
      const lost = slashed.reduce((sum, rejection) => sum + BigInt(rejection.slashed), 0n)
      assert.ok(lost > 0n && net(cheater) <= -lost, `${cheater.name} kept its stake`)
    }
    assert.ok(net(honest) > 0n, 'the honest solver was not paid')
    assert.equal(report.conservation.ok, true)
    assertNoOrphans(stateDir)
  })

  it('serves the role commands while up, and Ctrl-C stops anvil and every actor', async () => {
    const devnet = runGensyn(['devnet', 'up', '--scenario', 'fixtures/scenarios/smoke.yaml', '--state-dir', stateDir])
    try {
      await waitFor(() => (existsSync(path.join(stateDir, 'devnet.json')) ? true : undefined), 60_000, 'devnet.json')
      const running = await waitFor(() => runningProcesses(stateDir), 60_000, 'the actors to be spawned')
      const pids = [running.anvilPid, ...running.actors.map((actor) => actor.pid)].filter((pid): pid is number => pid !== undefined)
      assert.equal(pids.length, 5, 'expected anvil and four role actors')
      const settled = await waitFor(
        async () => {
          const show = await runGensyn(['tasks', 'show', '1', '--json', '--state-dir', stateDir])
          if (show.exitCode !== 0) return undefined
          const task = JSON.parse(String(show.stdout)) as {status: string; verdict: string}
          return task.status === 'Settled' ? task : undefined
        },
        300_000,
        'task 1 to settle',
      )
      assert.equal(settled.verdict, 'accepted')

      // For people: ether with its symbol, times against the chain's clock, hashes shortened to fit 80 columns.
      const human = await runGensyn(['tasks', 'show', '1', '--state-dir', stateDir])
      assert.equal(human.exitCode, 0, String(human.stderr))
      const shown = String(human.stdout)
      assert.match(shown, /^escrow\s+\d+(\.\d+)? ETH$/m)
      assert.match(shown, /^price\s+\d+(\.\d+)? gwei\/WU$/m)
      assert.match(shown, /^submittedAt\s+.+ ago \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/m)
      for (const line of shown.split('\n')) assert.ok(line.length <= 80, `wider than 80 columns: ${line}`)

      const list = await runGensyn(['tasks', 'list', '--json', '--state-dir', stateDir])
      assert.equal(list.exitCode, 0, String(list.stderr))
      assert.deepEqual((JSON.parse(String(list.stdout)) as {id: string}[]).map((task) => task.id), ['1'])

      const outDir = path.join(stateDir, 'model')
      const fetched = await runGensyn(['models', 'get', '1', '--out', outDir, '--json', '--state-dir', stateDir])
      assert.equal(fetched.exitCode, 0, String(fetched.stderr))
      const modelJson = JSON.parse(await readFile(path.join(outDir, 'model.json'), 'utf8')) as tf.io.ModelJSON
      const weights = await readFile(path.join(outDir, 'weights.bin'))
      await tf.setBackend('cpu')
      const model = await tf.loadLayersModel(
        tf.io.fromMemory({
          modelTopology: modelJson.modelTopology,
          weightSpecs: modelJson.weightsManifest.flatMap((group) => group.weights),
          weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
        }),
      )
      const prediction = model.predict(tf.zeros([1, 784])) as tf.Tensor
      assert.deepEqual(prediction.shape, [1, 10])
      // the same weights as safetensors, and a card naming the proof they came from
      const safetensors = decodeSafetensors(new Uint8Array(await readFile(path.join(outDir, 'model.safetensors'))))
      assert.deepEqual(new Float32Array(new Uint8Array(weights).buffer, 0, safetensors.tensors[0]!.values.length), safetensors.tensors[0]!.values)
      const card = JSON.parse(await readFile(path.join(outDir, 'model-card.json'), 'utf8')) as {taskId: string; proofRoot: string; metrics: {testAccuracy: number}}
      assert.equal(card.taskId, '1')
      assert.equal(safetensors.metadata['gensyn_proof_root'], card.proofRoot)
      assert.ok(card.metrics.testAccuracy >= 0.85, `card test accuracy ${card.metrics.testAccuracy}`)

      // `devnet report` reads a running devnet's chain: the settled task's phases and the actors by name.
      const reportDir = path.join(stateDir, 'live-report')
      const live = await runGensyn(['devnet', 'report', '--out', reportDir, '--json', '--state-dir', stateDir])
      assert.equal(live.exitCode, 0, String(live.stderr))
      assert.equal((JSON.parse(String(live.stdout)) as {source: string}).source, 'chain')
      const liveReport = JSON.parse(await readFile(path.join(reportDir, 'report.json'), 'utf8')) as {history: {timeline: {segments: {taskId: string; phase: string}[]}; detection: {label: string; actors: string[]}[]; curves: TrainingCurve[]}}
      assert.deepEqual([...new Set(liveReport.history.timeline.segments.filter((segment) => segment.taskId === '1').map((segment) => segment.phase))], ['submitted', 'claimed', 'committed', 'verifying', 'challenge window'])
      assert.deepEqual(liveReport.history.detection.find((row) => row.label === 'solver: honest')?.actors, ['solver-1', 'solver-2'])
      // The training curve needs only the chain and the store, so a live report has it too.
      assert.deepEqual(liveReport.history.curves.map((curve) => [curve.taskId, curve.verdict, curve.points.length, curve.replays.every((replay) => replay.match)]), [['1', 'accepted', 5, true]])

      assert.deepEqual(pids.filter((pid) => !isAlive(pid)), [], 'a process died while the devnet was up')
      devnet.kill('SIGINT')
      const exit = await devnet
      assert.notEqual(exit.exitCode, null)
      // Ctrl-C ends an open-ended run: its report is read from the chain before anvil stops, and kept per run.
      const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as Report
      assert.deepEqual(report.tasks.map((task) => task.status), ['Settled'])
      assert.equal(report.conservation.ok, true)
      assert.ok(existsSync(path.join(stateDir, 'runs')), 'no run folder')
      assertNoOrphans(stateDir)
      assert.deepEqual(pids.filter(isAlive), [], 'anvil or an actor outlived the devnet')
    } finally {
      devnet.kill('SIGKILL')
    }
  })

  it('leaves nothing behind even when the devnet itself is killed with SIGKILL', async () => {
    const devnet = runGensyn(['devnet', 'up', '--scenario', 'fixtures/scenarios/smoke.yaml', '--state-dir', stateDir])
    try {
      const running = await waitFor(() => runningProcesses(stateDir), 60_000, 'the actors to be spawned')
      const pids = [running.anvilPid, ...running.actors.map((actor) => actor.pid)].filter((pid): pid is number => pid !== undefined)
      assert.equal(pids.length, 5)
      devnet.kill('SIGKILL')
      await devnet
      // Actors notice their parent is gone within a second or two, even those still loading their modules (the
      // kill comes as soon as they are spawned); anvil's watchdog reacts at once. The submitter (listed apart from
      // the actors, and perhaps spawned after the read above) watches the devnet's pid too.
      const survivors = () => pids.flatMap((pid) => commandLineOf(pid) ?? []).join('; ')
      await waitFor(() => (pids.some(isAlive) ? undefined : true), 15_000, () => `anvil and the actors to exit (still running: ${survivors()})`)
      await waitFor(() => (processesMatching(stateDir).length === 0 ? true : undefined), 15_000, 'every process of the devnet to exit')
      assertNoOrphans(stateDir)
    } finally {
      devnet.kill('SIGKILL')
    }
  })

  it('a scenario with durationSeconds stops by itself, reports, and is judged: an unsettled task fails allSettled', async () => {
    const scenario = path.join(stateDir, 'short.yaml')
    const smoke = await readFile(path.join(repoRoot, 'fixtures/scenarios/smoke.yaml'), 'utf8')
    // Five seconds, and a challenge window of 60 s after the verdict: the smoke job cannot have settled, however fast
    // the machine (on an idle one, smoke itself settles in under 5 s).
    assert.match(smoke, /challengeWindow: 3\b/)
    const unsettleable = smoke.replace('../jobs/smoke-mlp.yaml', path.join(repoRoot, 'fixtures/jobs/smoke-mlp.yaml')).replace(/challengeWindow: 3\b/, 'challengeWindow: 600')
    await writeFile(scenario, `${unsettleable}durationSeconds: 5\n`)
    const run = await runGensyn(['devnet', 'up', '--scenario', scenario, '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 1, String(run.stderr))
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.ok, false)
    assert.ok(report.failures.some((failure) => /expected Settled|expected at least 1 tasks/.test(failure)), report.failures.join('; '))
    // Stopping the submitter at the end of the duration is the devnet's doing, not a submitter failure.
    assert.ok(!report.failures.some((failure) => /submitter-1 exited/.test(failure)), report.failures.join('; '))
    assert.equal(report.conservation.ok, true)
    assert.ok(existsSync(path.join(stateDir, 'report.md')))
    assertNoOrphans(stateDir)
  })

  it('fails cleanly when a job is invalid: non-zero exit, one-line reason, nothing left running', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', path.join(repoRoot, 'test/fixtures/bad/scenario.yaml'), '--until-settled', '--state-dir', stateDir])
    assert.notEqual(run.exitCode, 0)
    assert.match(String(run.stdout), /FAILED/)
    assertNoOrphans(stateDir)
  })
})
