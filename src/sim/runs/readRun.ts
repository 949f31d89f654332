import {readFile} from 'node:fs/promises'
import path from 'node:path'

import type {DevnetReport} from '../buildReport.js'
import {loadReportFile} from '../report/loadReportFile.js'
import type {RunRecord} from '../runRecord.js'

/** One run folder as found on disk: what it recorded (run.json) and its report, when it has them. */
export type StoredRun = {
  /** The folder's name, e.g. `2026-11-27T06-31-06Z-smoke`: what `devnet runs list` shows and `devnet report RUN` takes. */
  id: string
  dir: string
  record: RunRecord | undefined
  report: DevnetReport | undefined
  /** Why there is no report: none written yet (the run is going, or was killed), or a file that is not one. */
  missingReport?: string
}

/** Reads a run folder; a folder without run.json or report.json still reads (its run was cut short), saying what is missing. */
export async function readRun(dir: string): Promise<StoredRun> {
  const id = path.basename(path.resolve(dir))
  const record = await readRecord(path.join(dir, 'run.json'))
  try {
    return {id, dir, record, report: await loadReportFile(path.join(dir, 'report.json'))}
  } catch (error) {
    const exists = await readFile(path.join(dir, 'report.json')).then(
      () => true,
      () => false,
    )
    const missingReport = exists ? (error as Error).message : 'no report.json (still running, or stopped before writing one)'
    return {id, dir, record, report: undefined, missingReport}
  }
}

async function readRecord(file: string): Promise<RunRecord | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<RunRecord>
    return typeof value.startedAt === 'string' ? (value as RunRecord) : undefined
  } catch {
    return undefined
  }
}
