import assert from 'node:assert/strict'
import {type ChildProcess, spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {createAnvil} from '../src/chain/anvil.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const child = path.join(root, 'test', 'fixtures', 'anvil-child.ts')

/** True while `pid` is a live process. A zombie (exited, not yet reaped by its new parent) counts as gone. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ESRCH')
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return process.platform !== 'linux'
  }
}

async function waitUntilGone(pid: number, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms
  while (isRunning(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL') // do not leak it into the rest of the run
      assert.fail(`anvil (pid ${pid}) is still running ${ms} ms after its parent ended`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

type Child = {process: ChildProcess; lines: Record<string, unknown>[]; stderr: () => string; exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>}

/** Runs test/fixtures/anvil-child.ts in `mode` and resolves once it printed its anvil's pid (and `ready`, if asked). */
async function startChild(mode: string, options: {waitFor?: 'pid' | 'ready'; watchdog?: boolean} = {}): Promise<Child & {pid: number}> {
  const waitFor = options.waitFor ?? 'pid'
  const env = {...process.env, ANVIL_CHILD_WATCHDOG: options.watchdog === false ? '0' : '1'}
  const proc = spawn(process.execPath, ['--import', 'tsx', child, mode], {cwd: root, env, stdio: ['pipe', 'pipe', 'pipe']})
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  let buffered = ''
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => proc.on('exit', (code, signal) => resolve({code, signal})))
  const pid = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      let newline
      while ((newline = buffered.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>)
        buffered = buffered.slice(newline + 1)
      }
      const pidLine = lines.find((line) => typeof line.pid === 'number')
      if (pidLine && (waitFor === 'pid' || lines.some((line) => line.ready))) resolve(pidLine.pid as number)
    })
    void exited.then(({code, signal}) => reject(new Error(`anvil-child ${mode} exited early (${code ?? signal}): ${stderr}`)))
  })
  assert.ok(isRunning(pid), 'the child reported a running anvil')
  proc.stdin!.write('go\n') // modes that end by themselves do so now
  return {process: proc, lines, stderr: () => stderr, exited, pid}
}

describe('anvil lifecycle: no anvil outlives its owner', () => {
  it('start + stop in this process leaves no anvil behind', async () => {
    const anvil = createAnvil()
    await anvil.start()
    const pid = anvil.pid
    assert.ok(pid !== undefined && isRunning(pid))
    await anvil.stop()
    assert.equal(isRunning(pid), false)
  })

  // The exit/signal hooks alone (watchdog off) must already clean up on every ending a hook can see.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} to the owner kills its anvil (hooks alone), and the owner still dies of ${signal}`, async () => {
      const c = await startChild('wait', {watchdog: false})
      c.process.kill(signal)
      assert.deepEqual(await c.exited, {code: null, signal})
      await waitUntilGone(c.pid)
    })
  }

  it('an uncaught error in the owner kills its anvil (hooks alone)', async () => {
    const c = await startChild('throw', {watchdog: false})
    const {code} = await c.exited
    assert.equal(code, 1)
    assert.match(c.stderr(), /boom from anvil-child/)
    await waitUntilGone(c.pid)
  })

  it('an unhandled rejection in the owner kills its anvil (hooks alone)', async () => {
    const c = await startChild('reject', {watchdog: false})
    assert.equal((await c.exited).code, 1)
    await waitUntilGone(c.pid)
  })

  it('process.exit() in the owner kills its anvil (hooks alone)', async () => {
    const c = await startChild('exit', {watchdog: false})
    assert.equal((await c.exited).code, 3)
    await waitUntilGone(c.pid)
  })

  describe('SIGKILL of the owner (no hook can run)', () => {
    before(function () {
      if (process.platform === 'win32') this.skip()
    })

    it('kills its anvil through the watchdog, which also removes the run\'s persisted states', async () => {
      const c = await startChild('wait')
      const cachePath = c.lines.find((line) => typeof line.cachePath === 'string')?.cachePath as string
      assert.ok(existsSync(cachePath))
      c.process.kill('SIGKILL')
      assert.deepEqual(await c.exited, {code: null, signal: 'SIGKILL'})
      await waitUntilGone(c.pid)
      for (let tries = 0; existsSync(cachePath) && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(existsSync(cachePath), false, 'no persisted state is left behind')
    })

    it('control: without the watchdog the anvil would survive (so the test above proves the watchdog works)', async () => {
      const c = await startChild('wait', {watchdog: false})
      c.process.kill('SIGKILL')
      await c.exited
      await new Promise((resolve) => setTimeout(resolve, 300))
      try {
        assert.equal(isRunning(c.pid), true)
      } finally {
        process.kill(c.pid, 'SIGKILL')
      }
      await waitUntilGone(c.pid)
    })
  })

  it('an uncaught error kills its anvil with the watchdog on as well', async () => {
    const c = await startChild('throw')
    assert.equal((await c.exited).code, 1)
    await waitUntilGone(c.pid)
  })

  it('after stop() the owner ends by itself at once: no timer or handle is left behind', async () => {
    const c = await startChild('stop')
    const started = Date.now()
    assert.deepEqual(await c.exited, {code: 0, signal: null})
    // A leaked timer or handle keeps the owner alive indefinitely; the bound is loose so a loaded CI box passes.
    assert.ok(Date.now() - started < 10_000, `the owner took ${Date.now() - started} ms to end after stop()`)
    assert.equal(isRunning(c.pid), false)
  })

  it('with handleSignals: false the owner handles SIGINT itself: the chain still answers, then its stop() ends anvil', async () => {
    const c = await startChild('own-sigint', {waitFor: 'ready'})
    c.process.kill('SIGINT')
    assert.deepEqual(await c.exited, {code: 0, signal: null})
    assert.ok(c.lines.some((line) => typeof line.blockNumberAfterSigint === 'string'), 'the chain answered after SIGINT')
    assert.equal(isRunning(c.pid), false)
  })
})
