import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {pidsOf, readDevnetProcesses} from '../../src/sim/devnetProcesses.js'
import {isAlive} from '../../src/util/processLiveness.js'
import {runGensyn} from '../helpers/cli.js'
import {processesMatching, waitFor} from '../helpers/processes.js'

const scenario = 'test/fixtures/lifecycle/resume.yaml'

type Report = {
  ok: boolean
  failures: string[]
  tasks: {id: string; status: string; verdict: string; solver: string; attempts: number; testAccuracy: number | null}[]
  accounts: {name: string; address: string; role: string}[]
  conservation: {ok: boolean; totalBefore: string; totalAfter: string; gasFees: string}
  market: {timeouts: unknown[]}
}

type SolverLine = {type?: string; taskId?: string; step?: number}

function jsonLines<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T)
}

/** stderr is exactly one line (no stack trace) and says `expected`. */
function assertOneLineError(run: {exitCode?: number | undefined; stderr: unknown}, expected: RegExp): void {
  assert.notEqual(run.exitCode, 0)
  const lines = String(run.stderr).trim().split('\n')
  assert.equal(lines.length, 1, `expected one line on stderr, got:\n${String(run.stderr)}`)
  assert.match(lines[0]!, expected)
}

describe('gensyn devnet status / down / up --state: error paths (no devnet)', function () {
  this.timeout(60_000)
  let dir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-lifecycle-cli-'))
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('status and down say in one line that no devnet runs, and exit non-zero', async () => {
    const [status, down, statusJson] = await Promise.all([
      runGensyn(['devnet', 'status', '--state-dir', dir]),
      runGensyn(['devnet', 'down', '--state-dir', dir]),
      runGensyn(['devnet', 'status', '--state-dir', dir, '--json']),
    ])
    assertOneLineError(status, /^Error: no devnet running in /)
    assertOneLineError(down, /^Error: no devnet running in /)
    assert.equal(statusJson.exitCode, 1)
    const error = (JSON.parse(String(statusJson.stdout)) as {error: {name: string; message: string}}).error
    assert.equal(error.name, 'NoDevnetRunningError')
  })

  it('a stale processes.json (its devnet died) is not a running devnet', async () => {
    const stale = path.join(dir, 'stale')
    await mkdir(stale, {recursive: true})
    // A pid that cannot be alive: above the kernel's pid_max.
    await writeFile(path.join(stale, 'processes.json'), JSON.stringify({devnetPid: 2 ** 22 + 1, actors: []}))
    assertOneLineError(await runGensyn(['devnet', 'down', '--state-dir', stale]), /^Error: no devnet running in /)
  })

  it('up --detach reports a failure during start as the devnet\'s own one-line error, and leaves nothing running', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as AddressInfo
      const stateDir = path.join(dir, 'busy-port')
      const run = await runGensyn(['devnet', 'up', '--detach', '--port', String(port), '--scenario', scenario, '--state-dir', stateDir])
      assertOneLineError(run, /^Error: devnet up --detach: the devnet exited during start: anvil failed to start .*Address already in use/)
      assert.equal(run.exitCode, 1)
      assert.deepEqual(processesMatching(stateDir), [])
    } finally {
      server.close()
    }
  })

  it('up --state refuses, in one line and before starting anything, a file that is not a devnet state', async () => {
    const file = path.join(dir, 'not-a-state.json')
    await writeFile(file, '{"hello": 1}')
    const run = await runGensyn(['devnet', 'up', '--detach', '--state', file, '--state-dir', path.join(dir, 'state')])
    assertOneLineError(run, /^Error: --state: .*not-a-state\.json has no not-a-state\.json\.d\/devnet-state\.json beside it/)
    assert.equal(run.exitCode, 2)
    assert.equal(existsSync(path.join(dir, 'state', 'processes.json')), false, 'a devnet was started anyway')
  })
})

describe('gensyn devnet up --detach --state, down, and up --state again (real anvil, real actors, real training)', function () {
  this.timeout(400_000)
  let dir: string
  let stateDir: string
  let stateFile: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-lifecycle-'))
    stateDir = path.join(dir, 'run')
    stateFile = path.join(dir, 'chain.state')
  })
  after(async () => {
    // Whatever happened above, leave nothing running.
    const left = await readDevnetProcesses(stateDir)
    if (left && isAlive(left.devnetPid)) await runGensyn(['devnet', 'down', '--state-dir', stateDir, '--timeout', '10'])
    await rm(dir, {recursive: true, force: true})
  })

  it('a stopped devnet resumed with --state continues its open task: the same task settles accepted, money conserved', async () => {
    // 1. In the background, persisted.
    const up = await runGensyn(['devnet', 'up', '--detach', '--state', stateFile, '--scenario', scenario, '--state-dir', stateDir, '--json'])
    assert.equal(up.exitCode, 0, `up --detach failed:\n${String(up.stderr)}\n${String(up.stdout)}`)
    const detached = JSON.parse(String(up.stdout)) as {pid: number; rpcUrl: string; stateDir: string; log: string}
    assert.ok(isAlive(detached.pid), 'up --detach returned but its devnet is not running')
    assert.match(detached.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/)

    // 2. Its solver claims the task; status sees it all. Then, once a checkpoint past step 0 is stored, down at once:
    // the job is long enough that the solver cannot finish it in the time down takes, even on a loaded machine.
    const solverLog = path.join(stateDir, 'logs', 'solver-1.log')
    const solverLines = async () => jsonLines<SolverLine>(await readFile(solverLog, 'utf8').catch(() => ''))
    const claimed = await waitFor(async () => (await solverLines()).find((line) => line.type === 'claimed'), 120_000, 'the solver\'s claim')
    const taskId = claimed.taskId!
    const status = await runGensyn(['devnet', 'status', '--state-dir', stateDir, '--json'])
    assert.equal(status.exitCode, 0, String(status.stderr))
    const shown = JSON.parse(String(status.stdout)) as {running: boolean; pid: number; rpcUrl: string; actors: {name: string; alive: boolean}[]; tasks: {id: string; status: string}[]}
    assert.equal(shown.pid, detached.pid)
    assert.equal(shown.rpcUrl, detached.rpcUrl)
    for (const name of ['solver-1', 'verifier-1']) assert.ok(shown.actors.find((actor) => actor.name === name)?.alive, `${name} is not alive`)
    assert.ok(shown.tasks.some((task) => task.id === taskId), `task ${taskId} is not on chain`)
    const checkpoint = await waitFor(
      async () => (await solverLines()).find((line) => line.type === 'checkpoint' && line.taskId === taskId && (line.step ?? 0) > 0),
      120_000,
      'a stored checkpoint after step 0',
    )

    // 3. down: every process gone, the chain dumped, nothing in the state dir claims a devnet.
    const processes = await readDevnetProcesses(stateDir)
    assert.ok(processes)
    const pids = pidsOf(processes)
    assert.ok(pids.length >= 4, `expected the devnet, anvil and its actors in processes.json, got ${pids.join(', ')}`)
    const down = await runGensyn(['devnet', 'down', '--state-dir', stateDir, '--json'])
    assert.equal(down.exitCode, 0, String(down.stderr))
    assert.deepEqual((JSON.parse(String(down.stdout)) as {killed: number[]}).killed, [], 'down had to SIGKILL')
    assert.deepEqual(pids.filter((pid) => isAlive(pid)), [], 'processes left after down')
    assert.deepEqual(processesMatching(dir), [], 'a process still names the run')
    assert.equal(existsSync(path.join(stateDir, 'devnet.json')), false)
    assert.ok(existsSync(stateFile), 'anvil did not dump the chain')
    assertOneLineError(await runGensyn(['devnet', 'status', '--state-dir', stateDir]), /^Error: no devnet running in /)

    // 4. Resume: no redeploy, the job is not posted again, the solver picks its task up from its checkpoint.
    const resumed = await runGensyn(['devnet', 'up', '--state', stateFile, '--state-dir', stateDir, '--until-settled', '--json'])
    const report = jsonLines<Report>(String(resumed.stdout)).at(-1)
    assert.ok(report, `no report on stdout:\n${String(resumed.stderr)}\n${String(resumed.stdout)}`)
    assert.equal(resumed.exitCode, 0, `resumed devnet failed: ${report.failures.join('; ')}\n${String(resumed.stderr)}`)
    assert.equal(report.ok, true, report.failures.join('; '))
    assert.deepEqual(
      report.tasks.map((task) => task.id),
      [taskId],
      'the job was submitted again',
    )
    const [task] = report.tasks
    assert.equal(task!.status, 'Settled')
    assert.equal(task!.verdict, 'accepted')
    assert.equal(task!.attempts, 1, 'the task was rejected or reopened')
    const solver = report.accounts.find((account) => account.name === 'solver-1')
    assert.equal(task!.solver.toLowerCase(), solver?.address.toLowerCase(), 'another solver finished the task')
    assert.deepEqual(report.market.timeouts, [], 'the downtime timed the solver out')
    assert.equal(report.conservation.ok, true, 'money is not conserved across the stop')

    const afterResume = await solverLines()
    const resume = afterResume.find((line) => line.type === 'resumed' && line.taskId === taskId)
    assert.ok(resume, 'the restarted solver did not resume its task from a checkpoint')
    assert.ok((resume.step ?? 0) >= checkpoint.step!, `resumed at step ${resume.step}, a checkpoint at ${checkpoint.step} was stored before the stop`)
    assert.equal(afterResume.filter((line) => line.type === 'claimed').length, 1, 'the task was claimed twice')
    assert.deepEqual(processesMatching(dir), [], 'processes left after the resumed run')
  })
})
