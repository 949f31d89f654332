import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readdir, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {execa} from 'execa'

import {isAlive} from '../../src/util/processLiveness.js'
import {lastJsonLine, runGensyn} from '../helpers/cli.js'
import {assertNoOrphans, waitFor} from '../helpers/processes.js'

type Report = {
  ok: boolean
  failures: string[]
  tasks: {id: string; status: string; verdict: string}[]
  conservation: {ok: boolean}
  slashes: {account: string}[]
  crashes: {actor: string; role: string; cause: string; restartedAfterMs: number | null}[]
  partial?: {reason: string; chainRead: boolean; seenTasks?: {taskId: string}[]}
}

function jsonLines(stdout: string): unknown[] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as unknown)
}

async function onlyRunDir(stateDir: string): Promise<string> {
  const runs = await readdir(path.join(stateDir, 'runs'))
  assert.equal(runs.length, 1, `expected one run folder, found ${runs.join(', ')}`)
  return path.join(stateDir, 'runs', runs[0]!)
}

describe('a devnet that keeps running when parts die (real anvil, real actor processes, real training)', function () {
  this.timeout(600_000)
  let stateDir: string

  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-resilience-'))
  })
  afterEach(async () => {
    await rm(stateDir, {recursive: true, force: true})
  })

  it('chaos: a submitter, solver, verifier and whistleblower SIGKILLed mid-work are restarted; the task settles and money is conserved', async () => {
    const run = await runGensyn(['devnet', 'up', '--scenario', 'chaos', '--until-settled', '--json', '--state-dir', stateDir])
    assert.equal(run.exitCode, 0, `devnet failed:\n${String(run.stderr)}\n${String(run.stdout).slice(-3000)}`)
    const report = lastJsonLine<Report>(String(run.stdout))
    assert.equal(report.ok, true, report.failures.join('; '))
    assert.deepEqual(
      report.tasks.map((task) => [task.status, task.verdict]),
      [['Settled', 'accepted']],
    )
    assert.equal(report.conservation.ok, true)
    assert.deepEqual(report.slashes, [], 'a restarted honest actor was slashed')
    assert.deepEqual([...new Set(report.crashes.map((crash) => crash.role))].sort(), ['solver', 'submitter', 'verifier', 'whistleblower'], JSON.stringify(report.crashes))
    assert.ok(
      report.crashes.every((crash) => crash.cause === 'chaos' && crash.restartedAfterMs !== null),
      JSON.stringify(report.crashes),
    )
    // The run keeps its own report; the state dir holds the latest copy.
    const runDir = await onlyRunDir(stateDir)
    assert.deepEqual(JSON.parse(await readFile(path.join(runDir, 'report.json'), 'utf8')), report)
    assert.match(await readFile(path.join(runDir, 'report.md'), 'utf8'), /## Crashes and restarts/)
    assert.deepEqual(JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')), report)
    assertNoOrphans(stateDir)
  })

  it('anvil SIGKILLed mid-task: one line naming it, a partial report, nothing left running; --resume then settles the task', async () => {
    const stateFile = path.join(stateDir, 'run.state')
    // A job long enough that the chain dies mid-training: smoke's sub-second blocks settle it within the 3 s wait below.
    const devnet = runGensyn(['devnet', 'up', '--scenario', 'test/fixtures/lifecycle/resume.yaml', '--until-settled', '--state', stateFile, '--state-dir', stateDir])
    let narration = ''
    devnet.stdout?.on('data', (chunk: Buffer) => (narration += chunk.toString()))
    try {
      // Past the claim, so the chain holds work in flight when it dies.
      await waitFor(() => (/task 1: claimed/.test(narration) ? true : undefined), 120_000, 'a solver to claim task 1')
      const processes = JSON.parse(await readFile(path.join(stateDir, 'processes.json'), 'utf8')) as {anvilPid: number; actors: {pid?: number}[]}
      const {anvilPid} = processes
      // A second devnet on the same state dir refuses, naming the running one, and leaves it alone.
      const second = await runGensyn(['devnet', 'up', '--scenario', 'smoke', '--until-settled', '--state-dir', stateDir])
      assert.equal(second.exitCode, 1)
      assert.match(String(second.stderr).trim(), new RegExp(`^Error: a devnet is already running in ${stateDir} \\(pid ${devnet.pid}, rpc http://127\\.0\\.0\\.1:\\d+\\): stop it with \`gensyn devnet down --state-dir ${stateDir}\``))
      assert.ok(existsSync(path.join(stateDir, 'devnet.json')), "the refused devnet removed the running one's devnet.json")
      // anvil dumps its state every 2 s: let one dump hold the claim.
      await new Promise((resolve) => setTimeout(resolve, 3000))
      process.kill(anvilPid, 'SIGKILL')
      const exit = await devnet
      assert.equal(exit.exitCode, 1)
      const stderr = String(exit.stderr).trim()
      assert.equal(stderr.split('\n').length, 1, `expected one line:\n${stderr}`)
      assert.match(stderr, /the chain died: anvil killed by SIGKILL.*gensyn devnet up --resume.*partial report: .*report\.md/)
      assert.doesNotMatch(stderr, /HTTP request failed|fetch failed|\n\s+at /)
      const runDir = await onlyRunDir(stateDir)
      const partial = JSON.parse(await readFile(path.join(runDir, 'report.json'), 'utf8')) as Report
      assert.equal(partial.ok, false)
      assert.equal(partial.partial?.chainRead, false)
      assert.match(partial.partial?.reason ?? '', /the chain died/)
      assert.deepEqual(partial.partial?.seenTasks?.map((task) => task.taskId), ['1'])
      assert.ok(!processes.actors.some((actor) => isAlive(actor.pid)), 'an actor outlived the chain')
      assertNoOrphans(stateDir)
    } finally {
      devnet.kill('SIGKILL')
    }

    const resumed = await runGensyn(['devnet', 'up', '--resume', '--until-settled', '--json', '--state-dir', stateDir])
    assert.equal(resumed.exitCode, 0, `resume failed:\n${resumed.stderr}\n${String(resumed.stdout).slice(-3000)}`)
    const report = lastJsonLine<Report>(String(resumed.stdout))
    assert.equal(report.ok, true, report.failures.join('; '))
    assert.deepEqual(
      report.tasks.map((task) => [task.id, task.status, task.verdict]),
      [['1', 'Settled', 'accepted']],
    )
    assert.equal(report.conservation.ok, true)
    assert.equal((await readdir(path.join(stateDir, 'runs'))).length, 2, 'the resumed run has a report of its own')
    assert.ok(existsSync(stateFile))
    assertNoOrphans(stateDir)
  })

  it('a full disk: the solver that cannot store its checkpoint is restarted, then given up; the run fails in one line and still reports', async function () {
    // A disk that fills needs a small file system of its own: a 1.2 MB tmpfs (root with CAP_SYS_ADMIN, as on CI).
    const disk = path.join(stateDir, 'disk')
    await mkdir(disk)
    const mounted = await execa('mount', ['-t', 'tmpfs', '-o', 'size=1200k', 'tmpfs', disk], {reject: false})
    if (mounted.exitCode !== 0) this.skip()
    try {
      const run = await runGensyn(['devnet', 'up', '--scenario', 'smoke', '--until-settled', '--json', '--state-dir', disk])
      assert.equal(run.exitCode, 1)
      // With --json: the partial report (printed whatever the disk holds), then the one-line error.
      const [report, failure] = jsonLines(String(run.stdout)).slice(-2) as [Report, {error: {message: string}}]
      assert.match(failure.error.message, /^devnet stopped: solver-\d kept crashing \(last: exit 1: ENOSPC: no space left on device, write\) \(partial report: .*report\.md\)$/)
      assert.equal(String(run.stderr).trim(), '', 'nothing on stderr: no stack trace')
      assert.equal(report.ok, false)
      assert.equal(report.partial?.chainRead, true)
      assert.match(report.partial?.reason ?? '', /kept crashing/)
      const gaveUp = report.crashes.filter((crash) => crash.restartedAfterMs === null)
      assert.equal(gaveUp.length, 1, JSON.stringify(report.crashes))
      assert.ok(report.crashes.length >= 6, 'five restarts before it was given up')
      assert.deepEqual(await findFiles(disk, /\.tmp$/), [], 'a cut-off temporary file was left behind')
      assertNoOrphans(disk)
    } finally {
      await execa('umount', ['-l', disk], {reject: false})
    }
  })
})

async function findFiles(dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, {recursive: true})
  return entries.filter((entry) => pattern.test(entry))
}
