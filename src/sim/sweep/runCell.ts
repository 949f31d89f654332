import {rm} from 'node:fs/promises'

import {type BackendChoice} from '../../ml/backend/runtimeId.js'
import type {Devnet, DevnetEvent} from '../createDevnet.js'
import {DevnetStoppedError, runDevnet} from '../runDevnet.js'
import {readRun} from '../runs/readRun.js'
import {withSeed} from '../scenario.js'
import {applySettings} from './applySettings.js'
import {type CellOutcome, cellOutcome} from './summarizeSweep.js'
import {cellPaths} from './sweepPaths.js'
import type {OpenedSweep} from './openSweep.js'
import type {SweepCell} from './types.js'

export type RunCellParameters = {
  stateDir: string
  sweep: Pick<OpenedSweep, 'id' | 'plan'>
  cell: SweepCell
  backend?: BackendChoice | undefined
  timeoutSeconds?: number | undefined
  signal: AbortSignal
  /** The cell's devnet events, and its devnet once started (runDevnet's onEvent and onStarted), each with the cell. */
  onEvent?: ((cell: SweepCell, event: DevnetEvent) => void) | undefined
  onStarted?: ((cell: SweepCell, devnet: Devnet) => void) | undefined
}

/**
 * One cell: the plan's scenario with the cell's settings and seed, run until settled on a devnet of its own (its
 * state dir, a free anvil port) into its own run folder, started afresh if an earlier try left a partial one.
 * A run that ends early (an actor that kept crashing, the chain dying, Ctrl-C) is an outcome, not an error: its
 * partial report says why, and a rerun of the sweep runs the cell again.
 */
export async function runCell({stateDir, sweep, cell, backend, timeoutSeconds, signal, onEvent, onStarted}: RunCellParameters): Promise<CellOutcome> {
  const paths = cellPaths(stateDir, sweep.id, cell.id)
  const scenario = withSeed(applySettings(sweep.plan.scenario, cell.settings), cell.seed)
  await rm(paths.runDir, {recursive: true, force: true})
  let failure: string | undefined
  try {
    await runDevnet({
      scenario,
      stateDir: paths.stateDir,
      runDir: paths.runDir,
      backend,
      timeoutSeconds,
      untilSettled: true,
      signal,
      onEvent: onEvent && ((event) => onEvent(cell, event)),
      onStarted: onStarted && ((devnet) => onStarted(cell, devnet)),
    })
  } catch (error) {
    // A devnet stopped early wrote its partial report; one that never started wrote nothing, and says why here.
    if (!(error instanceof DevnetStoppedError)) failure = error instanceof Error ? error.message.split('\n')[0] : String(error)
  }
  const outcome = cellOutcome(cell, await readRun(paths.runDir))
  return failure && outcome.result === 'no report' ? {...outcome, reason: failure} : outcome
}
