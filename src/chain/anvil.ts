import {accessSync, constants, existsSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {createAnvil as createViemAnvil, type CreateAnvilOptions as ViemAnvilOptions} from '@viem/anvil'

import {BaseError} from '../errors/base.js'
import {AnvilNotStartedError, AnvilStartError, RpcNotReadyError} from './errors.js'
import {findAnvilBinary} from './findAnvilBinary.js'
import {keepStateDump, recoverStateDump, workingDumpPath} from './stateDump.js'

export type CreateAnvilOptions = {
  /** Port to listen on. Leave it out (or 0) for a free port chosen by the OS. */
  port?: number | undefined
  /** Interface to bind. Default 127.0.0.1 (never exposed beyond this machine unless asked). */
  host?: string | undefined
  /** Seconds between blocks (interval mining). Leave it out for a block per transaction (automine). */
  blockTime?: number | undefined
  chainId?: number | undefined
  /** Number of funded dev accounts (anvil's default: 10). */
  accounts?: number | undefined
  /** Balance of every dev account, in ether (anvil's default: 10000). */
  balance?: number | undefined
  /** BIP-39 mnemonic of the dev accounts (anvil's default: `test test ... junk`). */
  mnemonic?: string | undefined
  /** anvil executable; defaults to {@link findAnvilBinary}. */
  binary?: string | undefined
  /**
   * Persist the chain in this file: loaded at start when it exists; anvil dumps every `stateInterval` seconds
   * and when it exits on SIGTERM to `FILE.dumping`, and each complete dump replaces FILE atomically, so a kill in
   * the middle of a dump leaves the one before (src/chain/stateDump.ts). Blocks, receipts and logs are in the dump, and
   * historical states too (`--preserve-historical-states`), so reads at past blocks still answer after a load.
   */
  state?: string | undefined
  /** Seconds between state dumps (anvil `--state-interval`): a crash loses at most this much. Default 2 with `state`. */
  stateInterval?: number | undefined
  /** Milliseconds allowed from spawn to answering JSON-RPC. Default 15 000. */
  startTimeout?: number | undefined
  /** Milliseconds allowed for a graceful SIGTERM stop before SIGKILL. Default 5 000. */
  stopTimeout?: number | undefined
  /**
   * Kill anvil on SIGINT/SIGTERM/SIGHUP (default true). Pass false when the caller handles those signals
   * itself (for example to read the chain once more before shutting down): it must then call stop(). The
   * process 'exit' hook and the parent-death watchdog stay on either way.
   */
  handleSignals?: boolean | undefined
  /**
   * Start the parent-death watchdog (default true; see LAUNCH_SCRIPT). Only tests turn it off, to prove that
   * the exit and signal hooks work on their own.
   */
  watchdog?: boolean | undefined
  /**
   * Called when anvil exits while it was up and nobody had asked it to stop (killed from outside, crashed),
   * with one line on why: its exit code or signal and its last words.
   */
  onUnexpectedExit?: ((reason: string) => void) | undefined
}

export type AnvilStatus = 'idle' | 'starting' | 'listening' | 'stopping'

/** A local anvil with a prool-style lifecycle. Restartable: start() after stop() spawns a fresh chain. */
export type Anvil = {
  /** `http://host:port`; throws before start() has resolved. */
  readonly rpcUrl: string
  /** The bound port once started; before that the requested one (0 = any free port). */
  readonly port: number
  readonly host: string
  /** Process id of anvil itself; undefined when not running (and on Windows, where it is not known). */
  readonly pid: number | undefined
  /** Chain id reported by eth_chainId; throws before start() has resolved. */
  readonly chainId: number
  readonly status: AnvilStatus
  /** The last lines anvil printed (kept for error messages). */
  readonly logs: string[]
  /** The executable in use, once start() has been called. */
  readonly binary: string | undefined
  /**
   * The folder anvil persists old states in (`--cache-path`, a fresh one in the OS temp folder per start); it is
   * removed when anvil exits. Undefined when not running.
   */
  readonly cachePath: string | undefined
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * anvil is spawned through `/bin/sh` so that anvil dies with its parent even when the parent cannot run any hook
 * (SIGKILL, OOM kill, a crash in native code). The shell prints its pid (anvil keeps it: `exec` replaces the
 * shell image in place), starts a watchdog in the background, then becomes anvil. The watchdog blocks on
 * reading anvil's stdin, a pipe whose only write end the Node parent holds (libuv opens pipes close-on-exec,
 * so no other child inherits it). That read returns EOF exactly when the parent is gone, or when Node closes
 * the pipe after anvil itself exited; either way the watchdog then SIGKILLs anvil (a no-op in the second
 * case). No polling, one tiny `sh` per anvil. When it did kill a live anvil (the parent is gone), it becomes
 * `rm` of that run's persisted states; after a normal exit the kill fails and it just ends (the parent removes
 * them), so no process naming the run outlives `stop()`.
 *
 * `@viem/anvil` alone cannot guarantee this: it relies on execa's `cleanup` (signal-exit), which runs on
 * normal exit and signals but not on SIGKILL. On Windows there is no `/bin/sh`: there anvil is spawned
 * directly, execa's cleanup applies, and an anvil can outlive a parent that is killed hard.
 */
const LAUNCH_SCRIPT = [
  'bin=$1; watchdog=$2; cache=$3; shift 3',
  'if [ "$watchdog" = 1 ]; then',
  '  exec 3<&0',
  '  ( read -r _ <&3; kill -9 $$ 2>/dev/null && exec rm -rf "$cache" ) </dev/null >/dev/null 2>&1 &',
  '  exec 3<&-',
  'fi',
  'echo "gensyn-anvil-pid $$"',
  'exec "$bin" "$@"',
].join('\n')

type ExecArgs = Exclude<NonNullable<ViemAnvilOptions['execArgs']>, (...args: never[]) => unknown>

/** What execa runs for @viem/anvil's command: anvil with our flags, through the launcher where there is one. */
function launchCommand([file, viemArgs, execOptions]: ExecArgs, run: {cachePath: string; watchdog: boolean; keepHistory: boolean; ownSession: boolean}): ExecArgs {
  const args = [...viemArgs, '--cache-path', run.cachePath, ...(run.keepHistory ? ['--preserve-historical-states'] : [])]
  return useLauncher
    ? ['/bin/sh', ['-c', LAUNCH_SCRIPT, 'gensyn-anvil', file, run.watchdog ? '1' : '0', run.cachePath, ...args], {...execOptions, cleanup: false, detached: run.ownSession}]
    : [file, args, {...execOptions, cleanup: true}]
}

const PID_LINE = /gensyn-anvil-pid (\d+)/
// anvil prints the address it actually bound, which is how `--port 0` (an OS-chosen free port, with no race
// between finding a port and binding it) reveals its port.
const LISTENING_LINE = /Listening on (\S+):(\d+)/

const useLauncher = process.platform !== 'win32'

/**
 * Creates (does not start) a local anvil, using the binary from the `@foundry-rs/anvil` npm package by
 * default. Every started anvil is killed when this process exits (normally, on an uncaught error, on
 * process.exit, on SIGINT/SIGTERM/SIGHUP, and via the watchdog above even on SIGKILL).
 */
export function createAnvil(options: CreateAnvilOptions = {}): Anvil {
  const state = newAnvilState(options)
  const {host, logs} = state
  return {
    get rpcUrl() {
      if (state.status !== 'listening') throw new AnvilNotStartedError('rpcUrl')
      return urlFor(host, state.port)
    },
    get port() {
      return state.port
    },
    host,
    get pid() {
      return state.run?.exited ? undefined : state.run?.pid
    },
    get cachePath() {
      return state.run?.exited ? undefined : state.run?.cachePath
    },
    get chainId() {
      if (state.status !== 'listening' || state.chainId === undefined) throw new AnvilNotStartedError('chainId')
      return state.chainId
    },
    get status() {
      return state.status
    },
    get logs() {
      return logs.slice()
    },
    get binary() {
      return state.binary
    },
    start: () => startAnvil(state),
    stop: () => stopAnvil(state),
  }
}

/** One anvil's lifecycle: its settings, and what start() and stop() change, as fields rather than captured `let`s. */
type AnvilState = {
  readonly options: CreateAnvilOptions
  readonly host: string
  readonly startTimeout: number
  readonly stopTimeout: number
  readonly handleSignals: boolean
  readonly watchdog: boolean
  /** The last lines anvil printed (kept for error messages). */
  readonly logs: string[]
  /** This anvil in the process-wide exit hooks below. */
  readonly tracked: Tracked
  status: AnvilStatus
  binary: string | undefined
  /** The bound port once listening; before that the requested one (0 = any free port). */
  port: number
  chainId: number | undefined
  /** The process of the current start, until it has exited and been forgotten. */
  run: Run | undefined
  /** The start or stop under way, which a stop() waits for or shares. */
  starting: Promise<void> | undefined
  stopping: Promise<void> | undefined
}

function newAnvilState(options: CreateAnvilOptions): AnvilState {
  const handleSignals = options.handleSignals ?? true
  const state: AnvilState = {
    options,
    host: options.host ?? '127.0.0.1',
    startTimeout: options.startTimeout ?? 15_000,
    stopTimeout: options.stopTimeout ?? 5_000,
    handleSignals,
    watchdog: options.watchdog ?? true,
    logs: [],
    tracked: {
      handleSignals,
      killNow() {
        const {run} = state
        if (run?.pid !== undefined && !run.exited) {
          try {
            process.kill(run.pid, 'SIGKILL')
          } catch {
            // already gone
          }
        }
      },
    },
    status: 'idle',
    binary: options.binary,
    port: options.port ?? 0,
    chainId: undefined,
    run: undefined,
    starting: undefined,
    stopping: undefined,
  }
  return state
}

function log(state: AnvilState, message: string): void {
  state.logs.push(message)
  if (state.logs.length > 50) state.logs.shift()
}

async function startAnvil(state: AnvilState): Promise<void> {
  if (state.status !== 'idle') throw new BaseError(`anvil: start() called while it is ${state.status}`)
  state.status = 'starting'
  state.starting = launchAndWait(state).then(
    () => {
      state.status = 'listening'
    },
    async (error: unknown) => {
      await terminate(state).catch(() => {})
      state.status = 'idle'
      state.port = state.options.port ?? 0
      throw error
    },
  )
  try {
    await state.starting
  } finally {
    state.starting = undefined
  }
}

/** Spawns anvil, then checks that it listens where it was asked to and answers JSON-RPC with the right chain id. */
async function launchAndWait(state: AnvilState): Promise<void> {
  const {options, logs} = state
  const bin = (state.binary ??= findAnvilBinary().path)
  if (options.state !== undefined) await recoverStateDump(options.state)
  if (!isExecutable(bin)) throw new AnvilStartError({binary: bin, reason: 'no executable file at that path'})
  const current = spawnRun(state, bin)
  try {
    await current.base.start()
  } catch (error) {
    throw new AnvilStartError({binary: bin, reason: startFailureReason(error, logs), logs, cause: error})
  }
  if (useLauncher && current.pid === undefined) {
    throw new AnvilStartError({binary: bin, reason: 'the launcher did not report anvil\'s pid', logs})
  }
  if (current.port === undefined || current.port === 0) {
    throw new AnvilStartError({binary: bin, reason: 'anvil did not print the port it listens on ("Listening on host:port")', logs})
  }
  if (state.port !== 0 && current.port !== state.port) {
    throw new AnvilStartError({binary: bin, reason: `asked for port ${state.port}, anvil listens on ${current.port}`, logs})
  }
  state.port = current.port
  state.chainId = await waitForRpc(urlFor(state.host, state.port), state.startTimeout).catch((error: unknown) => {
    throw new AnvilStartError({binary: bin, reason: error instanceof Error ? error.message : String(error), logs, cause: error})
  })
  if (options.chainId !== undefined && state.chainId !== options.chainId) {
    throw new AnvilStartError({binary: bin, reason: `asked for chain id ${options.chainId}, eth_chainId says ${state.chainId}`, logs})
  }
}

/** Creates the @viem/anvil instance of a new run (its own --cache-path) and follows its output and its exit. */
function spawnRun(state: AnvilState, bin: string): Run {
  const {options, logs} = state
  const cachePath = mkdtempSync(path.join(os.tmpdir(), 'gensyn-anvil-'))
  const viemOptions: ViemAnvilOptions = {
    anvilBinary: bin,
    host: state.host,
    port: state.port,
    chainId: options.chainId,
    blockTime: options.blockTime,
    accounts: options.accounts,
    balance: options.balance,
    mnemonic: options.mnemonic,
    // anvil dumps beside the state file, which only ever holds a complete dump (src/chain/stateDump.ts).
    loadState: options.state !== undefined && existsSync(options.state) ? options.state : undefined,
    dumpState: options.state === undefined ? undefined : workingDumpPath(options.state),
    stateInterval: options.state === undefined ? undefined : stateIntervalOf(options),
    startTimeout: state.startTimeout,
    stopTimeout: state.stopTimeout,
    // Our own hooks replace execa's `cleanup` (signal-exit) wherever the launcher tells us the pid. anvil never
    // deletes the states it persists (about 300 kB a block, left in ~/.foundry/anvil/tmp by default: tens of
    // GB over many runs), so each run gets its own --cache-path, removed when it exits (by the watchdog too).
    // @viem/anvil has no option for --preserve-historical-states: without it a loaded chain forgets every
    // state before the dump, and reads at a past block (balances over time in the report) fail.
    // A caller that handles signals itself also keeps anvil out of the terminal's process group, so a Ctrl-C
    // reaches only the caller, which can still read the chain (its report) before it stops anvil.
    execArgs: (command) => launchCommand(command, {cachePath, watchdog: state.watchdog, keepHistory: options.state !== undefined, ownSession: !state.handleSignals}),
  }
  const base = createViemAnvil(viemOptions)
  const dumps = options.state === undefined ? undefined : keepStateDump(options.state, stateIntervalOf(options) * 1000)
  let markExited: () => void = () => {}
  const current: Run = {
    base,
    cachePath,
    pid: undefined,
    port: undefined,
    exited: false,
    whenExited: new Promise<void>((resolve) => (markExited = resolve)),
  }
  state.run = current
  logs.length = 0
  register(state.tracked)

  base.on('message', (message) => {
    log(state, message)
    if (current.pid === undefined) {
      const pid = PID_LINE.exec(message)?.[1]
      if (pid) current.pid = Number(pid)
    }
    if (current.port === undefined) {
      const bound = LISTENING_LINE.exec(message)?.[2]
      if (bound) current.port = Number(bound)
    }
  })
  base.on('exit', (code?: number, signal?: string) => {
    rmSync(cachePath, {recursive: true, force: true})
    current.exited = true
    // The dump anvil wrote as it exited becomes the state file before a stop() returns.
    if (dumps) void dumps.finish().catch(() => {}).finally(markExited)
    else markExited()
    // Exited on its own (crash, killed from outside) while we thought it was up: forget it.
    if (state.run === current && state.status === 'listening') {
      state.status = 'idle'
      state.run = undefined
      unregister(state.tracked)
      options.onUnexpectedExit?.(unexpectedExitReason(code, signal, logs))
    }
  })
  return current
}

/** SIGTERM, then SIGKILL after stopTimeout; resolves once anvil has exited. */
async function terminate(state: AnvilState): Promise<void> {
  const current = state.run
  if (!current) return
  const {stopTimeout} = state
  try {
    if (!current.exited) {
      if (current.pid === undefined) {
        // No pid (Windows, or it died before printing one): let @viem/anvil abort the child.
        await withTimeout(current.base.stop(), stopTimeout).catch(() => {})
      } else {
        signal(current.pid, 'SIGTERM')
        if (!(await withTimeout(current.whenExited, stopTimeout))) {
          signal(current.pid, 'SIGKILL')
          if (!(await withTimeout(current.whenExited, stopTimeout))) {
            throw new BaseError(`anvil (pid ${current.pid}) did not exit after SIGKILL`)
          }
        }
      }
    }
  } finally {
    if (state.run === current) state.run = undefined
    unregister(state.tracked)
  }
}

async function stopAnvil(state: AnvilState): Promise<void> {
  if (state.starting) await state.starting.catch(() => {})
  if (state.stopping) return state.stopping
  if (state.status === 'idle') return
  state.status = 'stopping'
  state.stopping = terminate(state).finally(() => {
    state.status = 'idle'
    state.chainId = undefined
    state.port = state.options.port ?? 0
    state.stopping = undefined
  })
  return state.stopping
}

function stateIntervalOf(options: CreateAnvilOptions): number {
  return options.stateInterval ?? 2
}

type Run = {
  base: ReturnType<typeof createViemAnvil>
  cachePath: string
  pid: number | undefined
  port: number | undefined
  exited: boolean
  whenExited: Promise<void>
}

// ------------------------------------------------------------------ process-wide exit hooks
//
// One set of hooks for every live anvil of this process, installed while at least one is alive.
// - 'exit' (normal end, process.exit(), uncaught error): SIGKILL every anvil synchronously (nothing async
//   can run there, and the chain's state is not kept anyway).
// - SIGINT/SIGTERM/SIGHUP: SIGKILL the anvils that handle signals, then, if nobody else listens for that
//   signal, re-raise it so the process still dies of it as it would have without us. The listener is
//   prepended so that it runs before signal-exit style listeners that decide based on who else listens.

type Tracked = {handleSignals: boolean; killNow(): void}

const live = new Set<Tracked>()
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
let exitHooked = false
let signalsHooked = false

function killAll(): void {
  for (const tracked of live) tracked.killNow()
}

function onSignal(signal: NodeJS.Signals): void {
  for (const tracked of [...live]) {
    if (!tracked.handleSignals) continue
    tracked.killNow()
    live.delete(tracked)
  }
  syncHooks()
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

function register(tracked: Tracked): void {
  live.add(tracked)
  syncHooks()
}

function unregister(tracked: Tracked): void {
  live.delete(tracked)
  syncHooks()
}

function syncHooks(): void {
  const wantExit = live.size > 0
  const wantSignals = [...live].some((tracked) => tracked.handleSignals)
  if (wantExit !== exitHooked) {
    if (wantExit) process.on('exit', killAll)
    else process.off('exit', killAll)
    exitHooked = wantExit
  }
  if (wantSignals !== signalsHooked) {
    for (const signal of SIGNALS) {
      if (wantSignals) process.prependListener(signal, onSignal)
      else process.off(signal, onSignal)
    }
    signalsHooked = wantSignals
  }
}

// ------------------------------------------------------------------ helpers

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** Why anvil went away, in one line: how it ended, and its last line when it said anything. */
export function unexpectedExitReason(code: number | undefined, signal: string | undefined, logs: readonly string[]): string {
  const how = signal ? `killed by ${signal}` : code === undefined ? 'exited' : `exited with code ${code}`
  // Its RPC trace (`eth_blockNumber`, ...) says nothing about why it went.
  const last = logs.flatMap((message) => message.split('\n')).map((line) => line.trim()).findLast((line) => line !== '' && !/^[a-z0-9]+_\w+$/.test(line))
  return last ? `${how}; its last line: ${last}` : how
}

/** One line: @viem/anvil's reason ("Anvil exited", "failed to start in time") plus anvil's last words. */
function startFailureReason(error: unknown, logs: string[]): string {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/:\s*$/, '').trim()
  const lastLine = logs
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !PID_LINE.test(line))
    .at(-1)
  return lastLine && !reason.includes(lastLine) ? `${reason.replace(/:.*$/, '')}: ${lastLine}` : reason
}

function urlFor(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}

/** Resolves true if `promise` settled in time, false on timeout; never leaves a timer behind. */
async function withTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([promise.then(() => true as const), timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/** Polls eth_chainId until anvil answers; returns the chain id. */
async function waitForRpc(rpcUrl: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: []}),
        signal: AbortSignal.timeout(1_000),
      })
      const body = (await response.json()) as {result?: unknown}
      if (typeof body.result === 'string') return Number.parseInt(body.result, 16)
      lastError = new Error(`unexpected eth_chainId answer: ${JSON.stringify(body)}`)
    } catch (error) {
      lastError = error
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new RpcNotReadyError(
    `no answer to eth_chainId on ${rpcUrl} within ${timeoutMs} ms (${lastError instanceof Error ? lastError.message : String(lastError)})`,
  )
}
