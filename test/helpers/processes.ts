import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'

import {processState} from '../../src/util/processLiveness.js'

/** Pids of live processes whose command line contains `needle` (read from /proc, so real processes only). */
export function processesMatching(needle: string): {pid: number; cmdline: string}[] {
  const found: {pid: number; cmdline: string}[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const cmdline = commandLineOf(Number(entry))
    if (cmdline?.includes(needle)) found.push({pid: Number(entry), cmdline})
  }
  return found
}

/** The command line of a live process, or undefined when it has exited (or is a zombie). */
export function commandLineOf(pid: number): string | undefined {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
    const state = processState(pid) // undefined: it exited between the two reads
    return state === undefined || state === 'Z' ? undefined : cmdline
  } catch {
    return undefined // the process exited while we looked
  }
}

/** Fails when any process whose command line names `stateDir` (an actor, anvil, the devnet) is still running. */
export function assertNoOrphans(stateDir: string): void {
  const left = processesMatching(stateDir)
  assert.deepEqual(left, [], `processes left behind: ${left.map((entry) => entry.cmdline).join('\n')}`)
}

/** Polls until `check` returns a value, or throws after `timeoutMs`; `what` may be computed then, to say what held it up. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string | (() => string)): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
