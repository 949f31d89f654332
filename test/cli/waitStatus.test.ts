import assert from 'node:assert/strict'

import {execa, type ResultPromise} from 'execa'

import {gensynBin, repoRoot} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'
import {waitFor} from '../helpers/processes.js'

type Running = {child: ResultPromise; stdout: () => string; stderr: () => string}

/** The built CLI as a long-running process, its stdout and stderr kept apart as they come. */
function start(file: string, args: string[]): Running {
  const child = execa(file, args, {cwd: repoRoot, env: {FORCE_COLOR: '0'}, reject: false, stdin: 'ignore', buffer: false})
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return {child, stdout: () => stdout, stderr: () => stderr}
}

const gensyn = (args: string[]) => start(process.execPath, [gensynBin, ...args])

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return
  running.child.kill('SIGINT')
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000)
  await running.child
  clearTimeout(timer)
}

function shows(running: Running, pattern: RegExp, what: string): Promise<string> {
  return waitFor(() => (pattern.test(running.stderr()) ? running.stderr() : undefined), 60_000, what).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; stdout:\n${running.stdout()}\nstderr:\n${running.stderr()}`)
  })
}

/**
 * A role command on a quiet market waits for work: it says on stderr what it waits for and the block, a spinner on a
 * terminal and a plain line on a pipe, and nothing under --json.
 */
describe('solve, verify and challenge --loop say what they wait for (built CLI, real anvil)', function () {
  this.timeout(180_000)
  let devnet: LocalDevnet
  const running: Running[] = []
  // Accounts: 0 treasury, 1 submitter, 2-3 solvers, 4 verifier, 5 whistleblower.
  const role = (args: string[]) => {
    const process = gensyn([...args, '--state-dir', devnet.stateDir])
    running.push(process)
    return process
  }

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 2, verifiers: 1, whistleblowers: 1})
  })
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stop))
  })
  after(() => devnet?.stop())

  it('off a terminal: one plain line per wait (what, and the block), and --json keeps stdout pure JSON lines', async () => {
    const solver = role(['solve', '--account', '2'])
    const solverJson = role(['solve', '--account', '3', '--json'])
    const verifier = role(['verify', '--account', '4'])
    const whistleblower = role(['challenge', '--loop', '--account', '5'])
    await shows(solver, /^waiting for an open task to claim \(block \d+\)$/m, 'the solver to say it waits for a task')
    await shows(verifier, /^waiting for a committed proof to verify \(block \d+\)$/m, 'the verifier to say it waits for a proof')
    await shows(whistleblower, /^watching for accepted tasks in their challenge window \(block \d+\)$/m, 'the whistleblower to say what it watches for')
    // The JSON solver is past the same events once its offer is listed (the event after which the other one waits).
    await waitFor(() => (solverJson.stdout().includes('"type":"offer-listed"') ? true : undefined), 60_000, 'the --json solver to list its offer')
    await stop(solverJson)
    const lines = solverJson.stdout().split('\n').filter((line) => line !== '')
    assert.ok(lines.length >= 2, solverJson.stdout())
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`)
    assert.doesNotMatch(solverJson.stderr(), /waiting/)
    for (const process of [solver, verifier, whistleblower]) {
      assert.doesNotMatch(process.stderr(), /\r|\u001B/, 'a pipe got a redrawn line')
      assert.doesNotMatch(process.stdout(), /waiting|watching for/, 'the status went to stdout')
    }
  })

  it('on a terminal (a pty from script(1)): a spinner that counts the seconds and shows the block', async function () {
    if ((await execa('script', ['--version'], {reject: false})).exitCode !== 0) this.skip() // util-linux script(1) is missing: no pty
    // script(1) gives a pty of no size when its own stdin is no terminal; stty makes it an 80-column one.
    const command = `stty cols 80 rows 24; ${[process.execPath, gensynBin, 'solve', '--account', '2', '--state-dir', devnet.stateDir].join(' ')}`
    const terminal = start('script', ['-qfec', command, '/dev/null'])
    running.push(terminal)
    const screen = await waitFor(() => (/waiting for an open task to claim · [1-9]\d* s · block \d+/.test(terminal.stdout()) ? terminal.stdout() : undefined), 60_000, 'the spinner to count a second').catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; the terminal's last output:\n${terminal.stdout().slice(-2000)}`)
    })
    assert.match(screen, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for an open task to claim · 0 s/u)
    assert.match(screen, /\u001B\[[02]?K/, 'the line is not redrawn in place')
  })
})
