import {render} from 'ink'

import type {DashboardState} from './dashboardState.js'
import {type DashboardStore, LiveDashboard} from './Dashboard.js'

export type MountDashboardOptions = {
  /** The state to draw now (a sweep switches between its cells' states). */
  getState(): DashboardState
  stdout: NodeJS.WriteStream
  stdin: NodeJS.ReadStream
  /** p: pause or resume, where the view has something to pause. */
  onTogglePause?: (() => void) | undefined
  /** n or Tab: show the next of several things running (a sweep's cells). */
  onNext?: (() => void) | undefined
  /** The run is stopping (q, Ctrl-C, a SIGINT or SIGTERM from outside): the view says so. */
  onStopping(): void
}

export type MountedDashboard = {
  /** Something in the state changed: a frame is drawn soon (at most ten a second). */
  changed(): void
  /** Aborts when the user presses q (or Ctrl-C): the run then stops exactly as on a SIGINT. */
  readonly quit: AbortSignal
  /** Unmounts the dashboard and gives the terminal back as it was. Safe to call twice. */
  stop(): void
}

// The alternate screen: the dashboard owns the whole terminal while it runs, and the shell's scrollback (and the
// report printed after it) is left untouched.
const enterAltScreen = '\u001B[?1049h\u001B[H'
const leaveAltScreen = '\u001B[?1049l'

/** Draws the live dashboard on the terminal's alternate screen and reads its keys until stopped. */
export function mountDashboard(options: MountDashboardOptions): MountedDashboard {
  const {stdout, stdin} = options
  const quit = new AbortController()
  const listeners = new Set<() => void>()
  let version = 0
  let pending: NodeJS.Timeout | undefined
  let stopped = false
  // A solver reports every training step: draw at most ten frames a second, however fast events come.
  const changed = () => {
    if (pending || stopped) return
    pending = setTimeout(() => {
      pending = undefined
      version++
      for (const listener of listeners) listener()
    }, 100)
  }
  const store: DashboardStore = {
    getState: options.getState,
    getVersion: () => version,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
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
    options.onStopping()
    changed()
    quit.abort()
  }

  stdout.write(enterAltScreen)
  const restoreOnExit = () => stdout.write(leaveAltScreen)
  process.once('exit', restoreOnExit)
  // A SIGINT or SIGTERM from outside (kill, `devnet down`) stops the run through withInterrupt: say so on screen.
  const onSignal = () => {
    options.onStopping()
    changed()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const keys = {onQuit, onTogglePause: () => options.onTogglePause?.(), onNext: () => options.onNext?.()}
  const app = render(<LiveDashboard store={store} keys={keys} stdout={stdout} />, {stdout, stdin, exitOnCtrlC: false, patchConsole: true, maxFps: 10})

  function stop(): void {
    if (stopped) return
    stopped = true
    clearTimeout(pending)
    app.unmount()
    app.cleanup()
    process.off('exit', restoreOnExit)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    stdout.write(leaveAltScreen)
  }

  return {changed, quit: quit.signal, stop}
}
