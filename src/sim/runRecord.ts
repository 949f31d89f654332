import {mkdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {InvalidInputError} from '../errors/base.js'
import type {BackendChoice} from '../ml/backend/runtimeId.js'
import type {ResolvedScenario} from './scenario.js'

/** What a run folder's run.json and the state dir's last-run.json say about a run. */
export type RunRecord = {
  runDir: string
  scenario: ResolvedScenario
  /** The --state FILE the chain is dumped to, when the run can be resumed. */
  stateFile?: string | undefined
  startedAt: string
  /** What decided the run besides the scenario: `devnet up`'s flags as they took effect (absent in older records). */
  parameters?: {backend: BackendChoice | undefined; port: number | undefined; untilSettled: boolean; timeoutSeconds: number; seed?: number | undefined} | undefined
  /** When the run's report was written (absent while it runs, and for a run killed before its report). */
  endedAt?: string | undefined
}

const lastRunFile = 'last-run.json'

/** `<stateDir>/runs`: the folder every run's own folder is made in. */
export function runsDirOf(stateDir: string): string {
  return path.join(stateDir, 'runs')
}

/** `<stateDir>/runs/<UTC time>-<scenario>`: each run's report stays, whatever runs after it. */
export function runFolder(stateDir: string, scenario: string, now = new Date()): string {
  const time = now.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-')
  return path.join(runsDirOf(stateDir), `${time}-${scenario.replaceAll(/[^\w.-]+/g, '_')}`)
}

/** Writes run.json into the run folder (the exact scenario it ran) and last-run.json into the state dir. */
export async function recordRun(stateDir: string, record: RunRecord): Promise<void> {
  await mkdir(record.runDir, {recursive: true})
  const text = `${JSON.stringify(record, null, 2)}\n`
  await writeFile(path.join(record.runDir, 'run.json'), text)
  await writeFile(path.join(stateDir, lastRunFile), text)
}

/** The --state FILE of the last run in `stateDir`, for `devnet up --resume`; a one-line error when there is none. */
export async function lastRunState(stateDir: string): Promise<string> {
  let record: RunRecord
  try {
    record = JSON.parse(await readFile(path.join(stateDir, lastRunFile), 'utf8')) as RunRecord
  } catch {
    throw new InvalidInputError(`--resume: no run recorded in ${stateDir} (start one with \`gensyn devnet up --state FILE\`)`)
  }
  if (typeof record.stateFile !== 'string') {
    throw new InvalidInputError(`--resume: the last run in ${stateDir} (${record.runDir}) kept no chain dump: start runs with --state FILE to resume them`)
  }
  return record.stateFile
}
