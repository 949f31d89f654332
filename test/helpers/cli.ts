import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {execa, type Options} from 'execa'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const gensynBin = path.join(repoRoot, 'bin', 'run.js')

/** Runs the built CLI as a real process, the way users and actors run it. Never throws on exit code. */
export function runGensyn(args: string[], options: Options = {}) {
  return execa(process.execPath, [gensynBin, ...args], {reject: false, cwd: repoRoot, env: {FORCE_COLOR: '0'}, ...options})
}
