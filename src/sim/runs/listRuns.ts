import path from 'node:path'

import {runsDirOf} from '../runRecord.js'
import {listRunIds} from './listRunIds.js'
import {readRun, type StoredRun} from './readRun.js'
import {wallSeconds} from './wallSeconds.js'

/** One row of `gensyn devnet runs list`. */
export type RunSummary = {
  id: string
  dir: string
  /** run.json's start time, or the folder name's when run.json is missing. */
  startedAt: string | null
  scenario: string
  /** `ok`: every expectation held; `FAILED`: one did not; `partial`: the run was cut short; `no report`: none on disk. */
  result: 'ok' | 'FAILED' | 'partial' | 'no report'
  /** Why it is not ok: the partial run's reason, the first failure, or why there is no report. */
  reason: string | null
  tasks: {settled: number; total: number} | null
  /** From run.json's start to its end (when the report was written); null for runs recorded before endedAt existed. */
  wallSeconds: number | null
  /** Money conserved to the wei; null when it could not be checked (no report, or the chain was gone). */
  conservationOk: boolean | null
}

/** Every run folder of a state dir, newest first, summarized from its run.json and report.json. */
export async function listRuns(stateDir: string): Promise<RunSummary[]> {
  const ids = await listRunIds(stateDir)
  const runs = await Promise.all(ids.map((id) => readRun(path.join(runsDirOf(stateDir), id))))
  return runs.map(summarizeRun)
}

function summarizeRun(run: StoredRun): RunSummary {
  const {record, report} = run
  const common = {
    id: run.id,
    dir: run.dir,
    startedAt: record?.startedAt ?? startFromId(run.id),
    scenario: record?.scenario.name ?? report?.scenario ?? run.id.replace(/^[\dT-]+Z-/, ''),
    wallSeconds: wallSeconds(record),
  }
  if (!report) return {...common, result: 'no report', reason: run.missingReport ?? null, tasks: null, conservationOk: null}
  const result = report.partial ? 'partial' : report.ok ? 'ok' : 'FAILED'
  return {
    ...common,
    result,
    reason: report.partial?.reason ?? report.failures[0] ?? null,
    tasks: {settled: report.tasks.filter((task) => task.status === 'Settled').length, total: report.tasks.length},
    conservationOk: report.partial?.chainRead === false ? null : report.conservation.ok,
  }
}

/** `2026-11-27T06-31-06Z-smoke` -> `2026-11-27T06:31:06Z` (runFolder's name, read back). */
function startFromId(id: string): string | null {
  const match = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d)Z/.exec(id)
  return match ? `${match[1]}:${match[2]}:${match[3]}Z` : null
}
