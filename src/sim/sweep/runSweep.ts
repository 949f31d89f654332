import {existsSync} from 'node:fs'
import path from 'node:path'

import {type BackendChoice} from '../../ml/backend/runtimeId.js'
import {readRun} from '../runs/readRun.js'
import {latestSweep, type OpenedSweep, openSweep, pendingCells, type SweepRequest} from './openSweep.js'
import {runCell, type RunCellParameters} from './runCell.js'
import {type CellOutcome, cellOutcome, summarizeSweep, type SweepSummary} from './summarizeSweep.js'
import {cellPaths} from './sweepPaths.js'
import type {SweepCell, SweepPlan} from './types.js'
import {type SweepFiles, writeSweep} from './writeSweep.js'

export type SweepEvent =
  /** `queue`: the cells this invocation runs, in the order they start. */
  | {type: 'planned'; id: string; dir: string; resumed: boolean; cells: number; pending: number; seed: number; queue: SweepCell[]}
  /** `position` of `of`: the cells this invocation runs (a resumed sweep runs only its unfinished ones). */
  | {type: 'cell-started'; cell: SweepCell; position: number; of: number}
  | {type: 'cell-finished'; outcome: CellOutcome; position: number; of: number}

export type RunSweepParameters = {
  stateDir: string
  /** What to sweep, or `resume` for the newest sweep in the state dir. */
  request: SweepRequest | 'resume'
  /** Cells run at once, each its own devnet. */
  parallel: number
  backend?: BackendChoice | undefined
  timeoutSeconds?: number | undefined
  signal: AbortSignal
  onEvent?: ((event: SweepEvent) => void) | undefined
  /** Every running cell's own devnet events and its started devnet, for a live view of the cells (the dashboard). */
  onCellEvent?: RunCellParameters['onEvent']
  onCellStarted?: RunCellParameters['onStarted']
}

export type SweepResult = SweepSummary & {
  id: string
  dir: string
  resumed: boolean
  /** The command that runs this sweep again with the same seeds. */
  command: string
  /** Cells run now, and cells whose complete run an earlier invocation left. */
  ran: string[]
  skipped: string[]
  /** Stopped (Ctrl-C) before every cell ran: a rerun finishes it. */
  interrupted: boolean
  files: SweepFiles
}

/**
 * `gensyn devnet sweep`: plans the grid (or picks up an interrupted sweep), runs the cells without a complete run,
 * `parallel` at a time, each its own devnet and run folder, then writes the summary over every cell.
 */
export async function runSweep(parameters: RunSweepParameters): Promise<SweepResult> {
  const {stateDir, signal} = parameters
  const emit = parameters.onEvent ?? (() => {})
  const sweep: OpenedSweep = parameters.request === 'resume' ? await latestSweep(stateDir) : await openSweep(stateDir, parameters.request)
  const pending = await pendingCells(stateDir, sweep)
  emit({type: 'planned', id: sweep.id, dir: sweep.dir, resumed: sweep.resumed, cells: sweep.plan.cells.length, pending: pending.length, seed: sweep.plan.seed, queue: pending})
  const ran: string[] = []
  let started = 0
  await inPool(pending, parameters.parallel, signal, async (cell) => {
    const position = ++started
    emit({type: 'cell-started', cell, position, of: pending.length})
    const outcome = await runCell({
      stateDir,
      sweep,
      cell,
      backend: parameters.backend,
      timeoutSeconds: parameters.timeoutSeconds,
      signal,
      onEvent: parameters.onCellEvent,
      onStarted: parameters.onCellStarted,
    })
    ran.push(cell.id)
    emit({type: 'cell-finished', outcome, position, of: pending.length})
  })
  const outcomes = await Promise.all(sweep.plan.cells.map((cell) => readCellOutcome(stateDir, sweep, cell)))
  const summary = summarizeSweep(sweep.plan, outcomes)
  const command = sweepCommand(sweep.plan)
  const files = await writeSweep(sweep.dir, summary, {id: sweep.id, command})
  const skipped = sweep.plan.cells.filter((cell) => !pending.includes(cell)).map((cell) => cell.id)
  return {...summary, id: sweep.id, dir: sweep.dir, resumed: sweep.resumed, command, ran, skipped, interrupted: signal.aborted, files}
}

/** A cell as its run folder has it; one never started says so. */
async function readCellOutcome(stateDir: string, sweep: OpenedSweep, cell: SweepCell): Promise<CellOutcome> {
  const {runDir} = cellPaths(stateDir, sweep.id, cell.id)
  if (!existsSync(runDir)) return {cell, runId: path.basename(runDir), runDir, result: 'no report', reason: 'not run yet', metrics: null}
  return cellOutcome(cell, await readRun(runDir))
}

/** Runs `work` on every item, at most `limit` at once, starting none once `signal` has fired. */
async function inPool<T>(items: readonly T[], limit: number, signal: AbortSignal, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length && !signal.aborted) await work(items[next++]!)
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
}

function sweepCommand(plan: SweepPlan): string {
  const scenario = plan.scenario.source === '(embedded default)' ? [] : ['--scenario', plan.scenario.source]
  const sets = plan.axes.flatMap((axis) => ['--set', `${axis.path}=${axis.values.join(',')}`])
  return ['gensyn devnet sweep', ...scenario, ...sets, '--repeat', String(plan.repeat), '--seed', String(plan.seed)].join(' ')
}
