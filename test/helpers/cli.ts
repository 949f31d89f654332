import assert from 'node:assert/strict'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {execa, type Options} from 'execa'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const gensynBin = path.join(repoRoot, 'bin', 'run.js')

/** Runs the built CLI as a real process, the way users and actors run it. Never throws on exit code. */
export function runGensyn(args: string[], options: Options = {}) {
  return execa(process.execPath, [gensynBin, ...args], {reject: false, cwd: repoRoot, env: {FORCE_COLOR: '0'}, ...options})
}

/** The last JSON line a `--json` command printed (the report, after any progress lines). */
export function lastJsonLine<T>(stdout: string): T {
  const line = stdout.trim().split('\n').filter((candidate) => candidate.startsWith('{')).at(-1)
  assert.ok(line, `no JSON on stdout:\n${stdout}`)
  return JSON.parse(line) as T
}
