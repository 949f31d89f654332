import {readdir, stat} from 'node:fs/promises'

import {InvalidInputError} from '../../errors/base.js'
import {runsDirOf} from '../runRecord.js'

/**
 * The run folders under `<stateDir>/runs`, newest first: their names start with the UTC start time, so
 * name order is start order. A state dir that does not exist is a one-line error (a mistyped --state-dir
 * must not read as "no runs").
 */
export async function listRunIds(stateDir: string): Promise<string[]> {
  const isFolder = await stat(stateDir).then(
    (found) => found.isDirectory(),
    () => false,
  )
  if (!isFolder) throw new InvalidInputError(`--state-dir: no folder ${stateDir} (expected a devnet state dir, where \`gensyn devnet up\` keeps runs/)`)
  const entries = await readdir(runsDirOf(stateDir), {withFileTypes: true}).catch(() => [])
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .reverse()
}
