import {stat} from 'node:fs/promises'
import path from 'node:path'

import {InvalidInputError} from '../../errors/base.js'
import {runsDirOf} from '../runRecord.js'
import {listRunIds} from './listRunIds.js'

export type ResolveRunParameters = {
  /** The devnet's state dir, whose runs/ holds the run folders. */
  stateDir: string
  /** A run id (`devnet runs list`), a unique prefix of one, `latest`, or a path to a run folder or its report.json. */
  run: string
  /** The argument's name in errors, e.g. `RUN` or `--compare`. */
  field?: string
}

/** Where a run's folder is, from what a user typed; anything that names no run, or several, is a one-line error. */
export async function resolveRun({stateDir, run, field = 'RUN'}: ResolveRunParameters): Promise<string> {
  if (run.trim() === '') throw new InvalidInputError(`${field}: empty; expected a run id, a unique prefix of one, latest, or a path`)
  const ids = await listRunIds(stateDir)
  const inRuns = (id: string) => path.join(runsDirOf(stateDir), id)
  if (run === 'latest') {
    // The newest run with a report: one still going (or killed before its report) has nothing to show yet.
    for (const id of ids) if ((await pathKind(path.join(inRuns(id), 'report.json'))) === 'file') return inRuns(id)
    throw new InvalidInputError(`${field}: no run with a report in ${runsDirOf(stateDir)} for \`latest\` (start one with \`gensyn devnet up\`)`)
  }
  if (ids.includes(run)) return inRuns(run)
  const asPath = await pathKind(run)
  if (asPath === 'folder') {
    const isRun = (await pathKind(path.join(run, 'report.json'))) === 'file' || (await pathKind(path.join(run, 'run.json'))) === 'file'
    if (!isRun) throw new InvalidInputError(`${field}: ${run} is a folder without report.json or run.json; expected a run folder (under ${runsDirOf(stateDir)})`)
    return run
  }
  if (asPath === 'file') {
    if (path.basename(run) !== 'report.json') throw new InvalidInputError(`${field}: ${run} is a file; expected a run folder or its report.json`)
    return path.dirname(run)
  }
  const matches = ids.filter((id) => id.startsWith(run))
  if (matches.length === 1) return inRuns(matches[0]!)
  if (matches.length > 1) {
    const shown = matches.slice(0, 3).join(', ') + (matches.length > 3 ? `, and ${matches.length - 3} more` : '')
    throw new InvalidInputError(`${field}: "${run}" is the start of ${matches.length} runs (${shown}); expected a unique prefix`)
  }
  throw new InvalidInputError(
    `${field}: no run "${run}" in ${runsDirOf(stateDir)}; expected a run id from \`gensyn devnet runs list\`, a unique prefix of one, latest, or a path`,
  )
}

async function pathKind(candidate: string): Promise<'folder' | 'file' | undefined> {
  try {
    const found = await stat(candidate)
    return found.isDirectory() ? 'folder' : 'file'
  } catch {
    return undefined
  }
}
