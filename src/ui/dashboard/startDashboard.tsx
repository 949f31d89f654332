import type {Devnet, DevnetEvent} from '../../sim/createDevnet.js'
import {applyDevnetEvent, createDashboardState, type DashboardState} from './dashboardState.js'
import {followDevnet} from './followDevnet.js'
import {mountDashboard} from './mountDashboard.js'

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

/**
 * Starts the live ink dashboard of `gensyn devnet up` on the terminal. Actor activity comes from the DevnetEvents;
 * the head, balances, stakes, tasks and money events from the chain, read about once per block.
 */
export function startDashboard(options: StartDashboardOptions): DevnetDashboard {
  const state: DashboardState = createDashboardState({scenario: options.scenario, stateDir: options.stateDir})
  const follower = followDevnet(state, () => mounted.changed(), options.pollMs)
  const mounted = mountDashboard({
    getState: () => state,
    stdout: options.stdout ?? process.stdout,
    stdin: options.stdin ?? process.stdin,
    onTogglePause: () => void follower.togglePause(),
    onStopping: () => {
      state.mode = 'stopping'
    },
  })
  return {
    quit: mounted.quit,
    onEvent(event) {
      applyDevnetEvent(state, event)
      mounted.changed()
    },
    onStarted: (devnet) => follower.attach(devnet),
    stop() {
      follower.detach()
      mounted.stop()
    },
  }
}
