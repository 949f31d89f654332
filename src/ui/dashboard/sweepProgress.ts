import type {SweepEvent} from '../../sim/sweep/runSweep.js'
import type {CellOutcome} from '../../sim/sweep/summarizeSweep.js'
import type {SweepCell} from '../../sim/sweep/types.js'

/** `queued` until it starts; then running; then how its run ended (a cell's outcome). */
export type SweepCellState = 'queued' | 'running' | CellOutcome['result']

export type SweepCellRow = {
  id: string
  /** The swept values and the repeat, e.g. `protocol.taxBps=100 (repeat 2)`. */
  label: string
  state: SweepCellState
  /** Why a finished cell is not ok; for a running one, its devnet's last phase. */
  detail: string | undefined
  /** Wall-clock milliseconds (Date.now()). */
  startedAt: number | undefined
  endedAt: number | undefined
}

/** A sweep as the dashboard shows it: the cells this invocation runs and how far each has got. */
export type SweepProgress = {
  id: string
  seed: number
  /** Cells of the grid an earlier invocation already completed (a resumed sweep skips them). */
  skipped: number
  cells: SweepCellRow[]
  /** Cells run at once (--parallel). */
  parallel: number
  startedAt: number
}

export function cellLabel(cell: Pick<SweepCell, 'settings' | 'repeat'>): string {
  const values = Object.entries(cell.settings).map(([path, value]) => `${path}=${String(value)}`)
  return `${values.join(' ')} (repeat ${cell.repeat})`
}

/** Folds a sweep event into the progress (created by the `planned` event, which comes first). */
export function applySweepEvent(progress: SweepProgress | undefined, event: SweepEvent, now: number, parallel = 1): SweepProgress | undefined {
  if (event.type === 'planned') {
    const cells = event.queue.map((cell): SweepCellRow => ({id: cell.id, label: cellLabel(cell), state: 'queued', detail: undefined, startedAt: undefined, endedAt: undefined}))
    return {id: event.id, seed: event.seed, skipped: event.cells - event.pending, cells, parallel, startedAt: now}
  }
  if (!progress) return progress
  const cell = event.type === 'cell-started' ? event.cell : event.outcome.cell
  const row = progress.cells.find((candidate) => candidate.id === cell.id)
  if (!row) return progress
  if (event.type === 'cell-started') {
    Object.assign(row, {state: 'running', startedAt: now, detail: 'starting'})
  } else {
    const {result, reason} = event.outcome
    Object.assign(row, {state: result, endedAt: now, detail: result === 'ok' ? undefined : (reason ?? undefined)})
  }
  return progress
}

/** A running cell's devnet said what it is doing (a `phase` event): the sweep's row shows it. */
export function noteCellPhase(progress: SweepProgress | undefined, cellId: string, phase: string): void {
  const row = progress?.cells.find((candidate) => candidate.id === cellId)
  if (row?.state === 'running') row.detail = phase
}

export type SweepCounts = {done: number; running: number; queued: number; notOk: number; total: number}

export function sweepCounts(progress: SweepProgress): SweepCounts {
  const count = (test: (row: SweepCellRow) => boolean) => progress.cells.filter(test).length
  const done = count((row) => row.endedAt !== undefined)
  return {
    done,
    running: count((row) => row.state === 'running'),
    queued: count((row) => row.state === 'queued'),
    notOk: count((row) => row.endedAt !== undefined && row.state !== 'ok'),
    total: progress.cells.length,
  }
}

/**
 * Milliseconds until every cell has run, from the mean wall time of the finished ones and how many run at once;
 * undefined until one has finished.
 */
export function sweepRemainingMs(progress: SweepProgress, now: number): number | undefined {
  const finished = progress.cells.filter((row) => row.startedAt !== undefined && row.endedAt !== undefined)
  if (finished.length === 0) return undefined
  const mean = finished.reduce((sum, row) => sum + (row.endedAt! - row.startedAt!), 0) / finished.length
  const running = progress.cells.filter((row) => row.state === 'running')
  const left = running.reduce((sum, row) => sum + Math.max(0, mean - (now - row.startedAt!)), 0)
  const queued = progress.cells.filter((row) => row.state === 'queued').length
  return (left + queued * mean) / Math.max(1, progress.parallel)
}
