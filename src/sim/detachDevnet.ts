import {spawn} from 'node:child_process'
import {closeSync, existsSync, fstatSync, openSync, writeSync} from 'node:fs'
import {mkdir, readFile} from 'node:fs/promises'
import path from 'node:path'

import {readDevnetConfig} from '../chain/devnetConfig.js'
import {BaseError} from '../errors/base.js'
import {isAlive} from '../util/processLiveness.js'
import {assertNoDevnetRunning, readDevnetProcesses} from './devnetProcesses.js'
import {packageRoot} from '../util/packageRoot.js'

export type DetachDevnetOptions = {
  /** The `gensyn devnet up` arguments the background devnet runs with (no --detach, no --json). */
  args: readonly string[]
  stateDir: string
  /** Give up (and stop it) if it is not up by then. Default 180 000 ms. */
  timeoutMs?: number | undefined
}

/** Where a devnet started in the background runs. */
export type DetachedDevnet = {pid: number; rpcUrl: string; stateDir: string; log: string; actors: number; stateFile?: string | undefined}

const runScript = path.join(packageRoot, 'bin', 'run.js')

/**
 * `gensyn devnet up --detach`: the same `devnet up` as a child in its own session (no terminal's Ctrl-C reaches
 * it), its output appended to <state-dir>/logs/devnet.log. Returns once it has written devnet.json and spawned
 * its actors; if it exits first, its last error line is the error. `gensyn devnet down` stops it.
 */
export async function detachDevnet(options: DetachDevnetOptions): Promise<DetachedDevnet> {
  const stateDir = path.resolve(options.stateDir)
  await assertNoDevnetRunning(stateDir)
  const logDir = path.join(stateDir, 'logs')
  await mkdir(logDir, {recursive: true})
  const log = path.join(logDir, 'devnet.log')
  const fd = openSync(log, 'a')
  writeSync(fd, `\n--- gensyn devnet up ${options.args.join(' ')} (detached, ${new Date().toISOString()})\n`)
  // Earlier runs' lines stay above: only what this one writes after here can explain its failure.
  const logStart = fstatSync(fd).size
  // Not an actor of anyone: it must not stop when this short-lived process exits.
  const {GENSYN_PARENT_PID: _parent, ...env} = process.env
  const child = spawn(process.execPath, [runScript, 'devnet', 'up', ...options.args], {
    cwd: process.cwd(),
    detached: true,
    stdio: ['ignore', fd, fd],
    env: {...env, FORCE_COLOR: '0'},
  })
  closeSync(fd)
  let exitCode: number | null | undefined
  child.on('exit', (code, signal) => {
    exitCode = code ?? (signal ? 128 : 1)
  })
  const failed = await new Promise<Error | undefined>((resolve) => child.once('error', resolve).once('spawn', () => resolve(undefined)))
  if (failed || child.pid === undefined) throw new BaseError(`devnet up --detach: could not start the background devnet: ${failed?.message ?? 'no pid'}`)
  const pid = child.pid

  const deadline = Date.now() + (options.timeoutMs ?? 180_000)
  for (;;) {
    if (exitCode !== undefined || !isAlive(pid)) {
      throw new BaseError(`devnet up --detach: the devnet exited during start: ${await lastErrorLine(log, logStart)}`, {details: `Log: ${log}`})
    }
    const processes = await readDevnetProcesses(stateDir)
    if (processes?.devnetPid === pid && processes.ready && existsSync(path.join(stateDir, 'devnet.json'))) {
      const config = await readDevnetConfig(stateDir)
      child.unref()
      return {pid, rpcUrl: config.rpcUrl, stateDir, log, actors: processes.actors.length, stateFile: processes.stateFile}
    }
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // already gone
      }
      throw new BaseError(`devnet up --detach: the devnet was not up after ${Math.round((options.timeoutMs ?? 180_000) / 1000)} s (stopped it)`, {details: `Log: ${log}`})
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The devnet's own one-line error (`Error: ...`), else its last line. */
async function lastErrorLine(log: string, from: number): Promise<string> {
  const bytes = await readFile(log).catch(() => Buffer.alloc(0))
  const lines = bytes
    .subarray(from)
    .toString('utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  const last = lines.findLast((line) => line.startsWith('Error:')) ?? lines.at(-1) ?? 'no output'
  return last.replace(/^Error:\s*/, '')
}
