import type {Devnet, DevnetEvent} from '../../sim/createDevnet.js'
import type {SweepEvent} from '../../sim/sweep/runSweep.js'
import {cellPaths} from '../../sim/sweep/sweepPaths.js'
import type {SweepCell} from '../../sim/sweep/types.js'
import {applyDevnetEvent, attachRoster, createDashboardState, type DashboardState} from './dashboardState.js'
import {type DevnetFollower, followDevnet} from './followDevnet.js'
import {mountDashboard} from './mountDashboard.js'
import {applySweepEvent, noteCellPhase, type SweepProgress} from './sweepProgress.js'

export type SweepDashboard = {
  /** Hand every SweepEvent here (runSweep's onEvent). */
  onSweepEvent(event: SweepEvent): void
  /** Each running cell's devnet events and its started devnet (runSweep's onCellEvent and onCellStarted). */
  onCellEvent(cell: SweepCell, event: DevnetEvent): void
  onCellStarted(cell: SweepCell, devnet: Devnet): void
  /** Aborts when the user presses q (or Ctrl-C): the sweep then stops exactly as on a SIGINT. */
  readonly quit: AbortSignal
  /** Unmounts the dashboard and gives the terminal back as it was. Safe to call twice. */
  stop(): void
}

export type StartSweepDashboardOptions = {
  scenario: string
  stateDir: string
  parallel: number
  stdout?: NodeJS.WriteStream
  stdin?: NodeJS.ReadStream
  pollMs?: number
}

/** A running cell: its own dashboard state, fed by its devnet's events; its devnet once started. */
type CellView = {state: DashboardState; devnet: Devnet | undefined}

/**
 * The live dashboard of `gensyn devnet sweep`: the sweep's progress on top (cells done, running and queued, the
 * time left), and below it the devnet dashboard of one running cell, with the training curve of the task it
 * trains. With `--parallel` above 1, n (or Tab) shows the next running cell; when the one shown finishes, another
 * running cell is shown, or the next to start.
 */
export function startSweepDashboard(options: StartSweepDashboardOptions): SweepDashboard {
  const waiting = createDashboardState({scenario: options.scenario, stateDir: options.stateDir})
  waiting.phase = 'planning the sweep'
  // What is shown while no cell runs: the plan at first, then the last frame of the cell that finished last.
  let idle = waiting
  const cells = new Map<string, CellView>()
  let progress: SweepProgress | undefined
  let following: string | undefined
  let follower: DevnetFollower | undefined

  const shown = (): DashboardState => {
    const state = (following && cells.get(following)?.state) || idle
    state.sweep = progress && {progress, following}
    return state
  }
  const mounted = mountDashboard({
    getState: shown,
    stdout: options.stdout ?? process.stdout,
    stdin: options.stdin ?? process.stdin,
    onNext: () => {
      const running = [...cells.keys()]
      if (running.length > 1) follow(running[(running.indexOf(following ?? '') + 1) % running.length]!)
    },
    onStopping: () => {
      for (const state of [idle, ...[...cells.values()].map((view) => view.state)]) state.mode = 'stopping'
    },
  })

  function follow(cellId: string): void {
    follower?.detach()
    follower = undefined
    following = cellId
    const view = cells.get(cellId)
    if (view) {
      follower = followDevnet(view.state, mounted.changed, options.pollMs)
      if (view.devnet) follower.attach(view.devnet)
    }
    mounted.changed()
  }

  return {
    quit: mounted.quit,
    onSweepEvent(event) {
      progress = applySweepEvent(progress, event, Date.now(), options.parallel)
      if (event.type === 'cell-started') {
        const {cell} = event
        const state = createDashboardState({scenario: `${options.scenario} · cell ${cell.id}`, stateDir: progress ? cellPaths(options.stateDir, progress.id, cell.id).stateDir : options.stateDir})
        cells.set(cell.id, {state, devnet: undefined})
        if (!following || !cells.has(following)) follow(cell.id)
      }
      if (event.type === 'cell-finished') {
        const finished = event.outcome.cell.id
        const view = cells.get(finished)
        cells.delete(finished)
        const next = [...cells.keys()][0]
        if (finished === following && next) follow(next)
        else if (finished === following) {
          // None runs now: the finished cell stays on screen until the next starts.
          follower?.detach()
          following = undefined
          if (view) idle = view.state
        }
      }
      mounted.changed()
    },
    onCellEvent(cell, event) {
      const view = cells.get(cell.id)
      if (!view) return
      applyDevnetEvent(view.state, event)
      if (event.type === 'phase') noteCellPhase(progress, cell.id, event.message)
      if (cell.id === following || event.type === 'phase') mounted.changed()
    },
    onCellStarted(cell, devnet) {
      const view = cells.get(cell.id)
      if (!view) return
      view.devnet = devnet
      if (cell.id === following) follower?.attach(devnet)
      else attachRoster(view.state, devnet)
    },
    stop() {
      follower?.detach()
      mounted.stop()
    },
  }
}
