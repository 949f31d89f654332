import {InvalidInputError} from '../../errors/base.js'
import type {DevnetReport} from '../buildReport.js'
import {readRun, type StoredRun} from './readRun.js'
import {resolveRun, type ResolveRunParameters} from './resolveRun.js'

/** A run named by the user (id, prefix, `latest` or path), with its report; a run without one is a one-line error. */
export async function loadRun(parameters: ResolveRunParameters): Promise<StoredRun & {report: DevnetReport}> {
  const run = await readRun(await resolveRun(parameters))
  if (!run.report) throw new InvalidInputError(`${parameters.field ?? 'RUN'}: run ${run.id} has no report to read: ${run.missingReport ?? 'none found'}`)
  return {...run, report: run.report}
}
