import path from 'node:path'

import {runsDirOf} from '../runRecord.js'

/** `<stateDir>/sweeps`: every sweep's folder (plan.json, sweep.md, sweep.json, charts/, cells/). */
export function sweepsDirOf(stateDir: string): string {
  return path.join(stateDir, 'sweeps')
}

/**
 * Where one cell runs: its own devnet state dir under the sweep's folder (devnet.json, store, logs: two cells at
 * once never share one), and its run folder among the state dir's runs, so `devnet runs list`, `devnet report RUN`
 * and `--compare` take it like any run. Both names are fixed by the plan, so a rerun finds them.
 */
export function cellPaths(stateDir: string, sweepId: string, cellId: string): {stateDir: string; runDir: string} {
  return {stateDir: path.join(sweepsDirOf(stateDir), sweepId, 'cells', cellId), runDir: path.join(runsDirOf(stateDir), `${sweepId}-${cellId}`)}
}
