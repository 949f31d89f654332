import {copyFile, mkdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {repoRoot} from './cli.js'

/** A run folder to lay out under `<stateDir>/runs`: a real report from test/fixtures/reports, changed as a test needs. */
export type FixtureRun = {
  id: string
  /** Which fixture report (smoke, colluding); none for a run that wrote no report. */
  report?: 'smoke' | 'colluding'
  /** Changes to the report, e.g. a failure or a partial run. */
  patch?: Record<string, unknown>
  /** run.json's times; without them the folder has no run.json (an older run). */
  startedAt?: string
  endedAt?: string
  /** run.json's `parameters` (devnet up's flags as they took effect). */
  parameters?: {backend?: string; untilSettled: boolean; timeoutSeconds: number}
}

/** Builds `<stateDir>/runs/<id>/` folders as `devnet up` leaves them (report.json, run.json), from real reports. */
export async function writeRunFolders(stateDir: string, runs: readonly FixtureRun[]): Promise<void> {
  for (const run of runs) {
    const dir = path.join(stateDir, 'runs', run.id)
    await mkdir(dir, {recursive: true})
    if (run.report) {
      const fixture = path.join(repoRoot, 'test', 'fixtures', 'reports', `${run.report}.json`)
      if (run.patch) {
        const report = JSON.parse(await readFile(fixture, 'utf8')) as Record<string, unknown>
        await writeFile(path.join(dir, 'report.json'), JSON.stringify({...report, ...run.patch}))
      } else {
        await copyFile(fixture, path.join(dir, 'report.json'))
      }
    }
    if (run.startedAt) {
      const scenario = {name: run.id.replace(/^[\dT-]+Z-/, ''), source: '(test)'}
      await writeFile(path.join(dir, 'run.json'), JSON.stringify({runDir: dir, scenario, startedAt: run.startedAt, endedAt: run.endedAt, parameters: run.parameters}))
    }
  }
}
