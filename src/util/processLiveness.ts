import {readFileSync} from 'node:fs'

// Node builtins only: bin/run.js loads this (through parentWatch.ts) before anything else.

/** Whether `pid` is a live process; a zombie (exited, not yet reaped by its parent) counts as gone. */
export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  // No /proc (macOS): kill(0) is all we know.
  if (process.platform !== 'linux') return true
  const state = processState(pid)
  return state !== undefined && state !== 'Z'
}

/** The one-letter state in /proc/<pid>/stat (R running, S sleeping, T stopped, Z zombie); undefined when gone or without /proc. */
export function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
  } catch {
    return undefined
  }
}
