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
