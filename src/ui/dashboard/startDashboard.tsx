import {render} from 'ink'

import type {Devnet, DevnetEvent} from '../../sim/createDevnet.js'
import {applyChainView, applyDevnetEvent, attachRoster, createDashboardState, type DashboardState} from './dashboardState.js'
import {type DashboardStore, LiveDashboard} from './Dashboard.js'
import {type ChainPoller, createChainPoller} from './readChainView.js'

export type DevnetDashboard = {
  /** Hand every DevnetEvent here (runDevnet's onEvent). */
  onEvent(event: DevnetEvent): void
  /** Hand the started devnet here (runDevnet's onStarted): the dashboard polls its chain and pauses it. */
  onStarted(devnet: Devnet): void
  /** Aborts when the user presses q (or Ctrl-C): the run then stops exactly as on a SIGINT. */
  readonly quit: AbortSignal
  /** Unmounts the dashboard and gives the terminal back as it was. Safe to call twice. */
  stop(): void
}

export type StartDashboardOptions = {
  scenario: string
  stateDir: string
  stdout?: NodeJS.WriteStream
  stdin?: NodeJS.ReadStream
  /** How often to look for a new block (the chain is read again only when one was mined). */
  pollMs?: number
}

/**
 * The dashboard needs a terminal to draw on and a keyboard to read; anything else gets the plain line log. So does
 * a CI job even on a terminal: ink draws nothing live there (it writes only the last frame, at exit, when `CI` or
 * `CONTINUOUS_INTEGRATION` is set), and a CI log wants lines anyway.
 */
export function canShowDashboard(options: {json: boolean; stdout?: {isTTY?: boolean}; stdin?: {isTTY?: boolean}; env?: NodeJS.ProcessEnv}): boolean {
  const stdout = options.stdout ?? process.stdout
  const stdin = options.stdin ?? process.stdin
  const env = options.env ?? process.env
  const set = (key: string) => env[key] !== undefined && env[key] !== '0' && env[key] !== 'false'
  const inCi = set('CI') || set('CONTINUOUS_INTEGRATION')
  return !options.json && stdout.isTTY === true && stdin.isTTY === true && env.TERM !== 'dumb' && !inCi
}

// The alternate screen: the dashboard owns the whole terminal while it runs, and the shell's scrollback (and the
// report printed after it) is left untouched.
const enterAltScreen = '\u001B[?1049h\u001B[H'
const leaveAltScreen = '\u001B[?1049l'

/**
 * Starts the live ink dashboard of `gensyn devnet up` on the terminal. Actor activity comes from the DevnetEvents;
 * the head, balances, stakes, tasks and money events from the chain, read about once per block.
 */
export function startDashboard(options: StartDashboardOptions): DevnetDashboard {
  const stdout = options.stdout ?? process.stdout
  const stdin = options.stdin ?? process.stdin
  const state: DashboardState = createDashboardState({scenario: options.scenario, stateDir: options.stateDir})
  const quit = new AbortController()
  const listeners = new Set<() => void>()
  let version = 0
  let pending: NodeJS.Timeout | undefined
  // A solver reports every training step: draw at most ten frames a second, however fast events come.
  const changed = () => {
    if (pending) return
    pending = setTimeout(() => {
      pending = undefined
      version++
      for (const listener of listeners) listener()
    }, 100)
  }
  const store: DashboardStore = {
    getState: () => state,
    getVersion: () => version,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }

  let devnet: Devnet | undefined
  let poller: ChainPoller | undefined
  let pollTimer: NodeJS.Timeout | undefined
  let polling = false
  let toggling = false
  let stopped = false

  const note = (text: string, kind: 'devnet' | 'error' = 'devnet') => {
    state.feed.push({block: state.head?.number, actor: 'dashboard', kind, text})
    changed()
  }

  async function poll(): Promise<void> {
    if (!poller || polling || stopped) return
    polling = true
    try {
      const view = await poller.poll()
      if (view && !stopped) {
        applyChainView(state, view)
        changed()
      }
    } catch {
      // anvil is busy or already stopping: the next poll tries again, and the run itself reports real failures.
    } finally {
      polling = false
    }
  }

  async function togglePause(): Promise<void> {
    if (!devnet || toggling || state.mode === 'stopping' || state.mode === 'starting') return
    toggling = true
    const resuming = devnet.paused
    state.mode = resuming ? 'resuming' : 'pausing'
    changed()
    try {
      if (resuming) {
        await devnet.resume()
        if (state.mode === 'resuming') state.mode = 'running'
        note('resumed: chain time continues from the last block, actors continue (SIGCONT)')
      } else {
        await devnet.pause()
        if (state.mode === 'pausing') state.mode = devnet.paused ? 'paused' : 'running'
        const head = await devnet.connection?.publicClient.getBlockNumber({cacheTime: 0}).catch(() => undefined)
        if (devnet.paused) note(`paused: mining stopped at block ${head ?? '?'}, actors stopped (SIGSTOP)`)
      }
    } catch (error) {
      if (state.mode === 'pausing' || state.mode === 'resuming') state.mode = devnet.paused ? 'paused' : 'running'
      note(`${resuming ? 'resume' : 'pause'} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 'error')
    } finally {
      toggling = false
    }
  }

  let quits = 0
  const onQuit = () => {
    quits++
    if (quits > 1) {
      // A second q or Ctrl-C while stopping: give up at once, like a second Ctrl-C of the plain log. The actors
      // watch our pid and anvil's watchdog its stdin, so nothing outlives us.
      stop()
      process.exit(130)
    }
    state.mode = 'stopping'
    changed()
    quit.abort()
  }

  stdout.write(enterAltScreen)
  const restoreOnExit = () => stdout.write(leaveAltScreen)
  process.once('exit', restoreOnExit)
  // A SIGINT or SIGTERM from outside (kill, `devnet down`) stops the run through withInterrupt: say so on screen.
  const onSignal = () => {
    state.mode = 'stopping'
    changed()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const app = render(<LiveDashboard store={store} keys={{onQuit, onTogglePause: () => void togglePause()}} stdout={stdout} />, {
    stdout,
    stdin,
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: 10,
  })

  function stop(): void {
    if (stopped) return
    stopped = true
    clearInterval(pollTimer)
    clearTimeout(pending)
    app.unmount()
    app.cleanup()
    process.off('exit', restoreOnExit)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    stdout.write(leaveAltScreen)
  }

  return {
    quit: quit.signal,
    onEvent(event) {
      applyDevnetEvent(state, event)
      changed()
    },
    onStarted(started) {
      devnet = started
      attachRoster(state, started)
      const connection = started.connection
      if (connection) {
        const addresses = state.actors.flatMap((actor) => (actor.address ? [actor.address] : []))
        poller = createChainPoller({
          connection,
          addresses,
          fromBlock: 0n,
          nameOf: (address) => state.names.get(address.toLowerCase()) ?? `${address.slice(0, 8)}…`,
        })
        pollTimer = setInterval(() => void poll(), options.pollMs ?? 500)
        void poll()
      }
      changed()
    },
    stop,
  }
}
