import {createWriteStream} from 'node:fs'
import path from 'node:path'
import {createInterface} from 'node:readline'

import {execa} from 'execa'

import {packageRoot} from '../util/packageRoot.js'
import type {ActorExit} from './actorExit.js'

/** A role actor's, or `crowd` for a process hosting a share of a crowd scenario's actors (src/sim/crowd/). */
export type ActorRole = 'submitter' | 'solver' | 'verifier' | 'whistleblower' | 'crowd'

export type ActorHandle = {
  name: string
  role: ActorRole
  account: number
  pid: number | undefined
  /** How the process ended, once it has. */
  readonly exit: ActorExit | undefined
  /** Resolves when the process exits, never rejects. */
  exited: Promise<ActorExit>
  /** SIGTERM (the actor finishes its current step), then SIGKILL after a grace period. */
  stop(): Promise<ActorExit>
  /** SIGKILL at once, with no chance to clean up: a real crash (the devnet's dropout solver). */
  kill(): Promise<ActorExit>
  /** Whether it was killed on purpose (kill()): its exit is not a crash of the run. */
  readonly killed: boolean
}

export type SpawnActorOptions = {
  name: string
  role: ActorRole
  account: number
  /** Arguments after `gensyn`, e.g. ['solve', '--loop']. */
  args: string[]
  /** Folders its `<name>.log` is appended to: the state dir's logs/ (the latest, tailed live) and the run folder's own. */
  logDirs: readonly string[]
  /** Extra environment for the process (on top of ours). */
  env?: Record<string, string> | undefined
  onJson?: (value: Record<string, unknown>) => void
}

const runScript = path.join(packageRoot, 'bin', 'run.js')

/**
 * V8's young generation capped at 1 MiB semi-spaces (Node 20's default lets it grow to 16), and one V8 background
 * worker thread instead of Node's default four: each actor's peak memory fell by 16-38 MiB at 2 MiB semi-spaces, and
 * by 2-11 MiB more with these two, for no measurable CPU in an offline solve (docs/benchmarks.md, "Memory per actor
 * process"); how the saving splits between the two flags was not measured.
 */
export const actorNodeFlags = ['--max-semi-space-size=1', '--v8-pool-size=1'] as const

/**
 * Starts one actor as its own process running the same CLI a user runs. Its stdout and stderr go to
 * `<dir>/<name>.log` in every one of `logDirs`; JSON lines on stdout are handed to `onJson`. The child gets our pid so it stops
 * by itself if we die without a chance to stop it.
 */
export function spawnActor(options: SpawnActorOptions): ActorHandle {
  const logs = options.logDirs.map((dir) => {
    const log = createWriteStream(path.join(dir, `${options.name}.log`), {flags: 'a'})
    // A log that cannot be written (a full disk) must not bring the devnet down: the actor's own failure says why.
    log.on('error', () => {})
    return log
  })
  const writeLog = (chunk: string | Buffer) => {
    for (const log of logs) log.write(chunk)
  }
  const child = execa(process.execPath, [...actorNodeFlags, runScript, ...options.args], {
    // An RPC URL in the user's environment (ETH_RPC_URL is often a public chain's) must not lead the devnet's
    // actors away from its anvil: they find it through --state-dir.
    env: {...options.env, GENSYN_RPC_URL: undefined, ETH_RPC_URL: undefined, GENSYN_PARENT_PID: String(process.pid), FORCE_COLOR: '0'},
    stdin: 'ignore',
    reject: false,
    cleanup: true,
    forceKillAfterDelay: 3000,
    buffer: false,
  })
  let stderrTail = ''
  let error: string | undefined
  const lines = createInterface({input: child.stdout!})
  lines.on('line', (line) => {
    writeLog(`${line}\n`)
    if (!line.startsWith('{')) return
    try {
      const value = JSON.parse(line) as Record<string, unknown>
      const reported = (value.error as {message?: unknown} | undefined)?.message
      if (typeof reported === 'string') error = reported
      options.onJson?.(value)
    } catch {
      // Pretty-printed JSON spans lines; the caller reads the final object from the log instead.
    }
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    writeLog(chunk)
    stderrTail = (stderrTail + chunk.toString()).slice(-2000)
  })
  let exit: ActorExit | undefined
  let killed = false
  const exited: Promise<ActorExit> = child.then(async (result) => {
    // Flushed before the exit is known, so whoever reads the logs then (a report, a test) reads them whole.
    await Promise.all(logs.map((log) => new Promise<void>((resolve) => log.end(() => resolve()))))
    exit = {exitCode: result.exitCode, signal: result.signal, stderrTail, error}
    return exit
  })
  return {
    get exit() {
      return exit
    },
    name: options.name,
    role: options.role,
    account: options.account,
    pid: child.pid,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
    get killed() {
      return killed
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        killed = true
        child.kill('SIGKILL')
      }
      return exited
    },
  }
}
