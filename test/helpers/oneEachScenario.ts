import {writeFile} from 'node:fs/promises'
import path from 'node:path'

import {repoRoot} from './cli.js'

/**
 * Writes `one-each.yaml` into `dir`: the smoke job with one submitter, one solver and one verifier, the smallest
 * devnet that settles, and one where no two actors of a role race (which of two solvers claims first is timing).
 */
export async function writeOneEachScenario(dir: string): Promise<string> {
  const file = path.join(dir, 'one-each.yaml')
  const job = path.join(repoRoot, 'fixtures', 'jobs', 'smoke-mlp.yaml')
  await writeFile(file, `name: one-each\nactors: {submitters: 1, solvers: 1, verifiers: 1}\njobs:\n  - file: ${JSON.stringify(job)}\nchain: {blockTime: 1, challengeWindow: 2}\nprotocol: {forcedErrorBps: 0}\ntimeoutSeconds: 300\n`)
  return file
}
