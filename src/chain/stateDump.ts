import {existsSync} from 'node:fs'
import {readFile, rename, rm, stat, writeFile} from 'node:fs/promises'

/**
 * anvil writes its state dump in place, every `--state-interval` and on exit: a kill in the middle of a write
 * leaves a cut-off file, and the run cannot be resumed from it. So anvil dumps to this working file beside the
 * state file, and the state file itself is only ever replaced, atomically, by a complete dump
 * ({@link keepStateDump}).
 */
export function workingDumpPath(file: string): string {
  return `${file}.dumping`
}

export type StateDumpKeeper = {
  /** Copies a new, complete working dump over the state file. Safe to call at any time. */
  promote(): Promise<void>
  /** Stops the timer after one last promotion (anvil's exit dump). */
  finish(): Promise<void>
}

/**
 * Keeps `file` the last complete dump anvil wrote to {@link workingDumpPath}: every `intervalMs`, a working
 * dump that changed since the last look and parses as JSON is written to a temporary file and renamed
 * over `file`. A dump cut off by a kill fails to parse and leaves the previous one in place. The cost is a read
 * and a parse of each new dump (anvil's own write of it is about the same).
 */
export function keepStateDump(file: string, intervalMs: number): StateDumpKeeper {
  let seen = ''
  let running: Promise<void> = Promise.resolve()
  const promote = () => {
    running = running.then(async () => {
      seen = (await promoteIfComplete(file, seen)) ?? seen
    })
    return running
  }
  const timer = setInterval(() => void promote(), intervalMs)
  timer.unref()
  return {
    promote,
    async finish() {
      clearInterval(timer)
      await promote()
    },
  }
}

/**
 * Before anvil loads `file`: a working dump that is complete and newer than `file` (anvil's exit dump when this
 * process died before promoting it) becomes the state file; a cut-off one is dropped.
 */
export async function recoverStateDump(file: string): Promise<void> {
  const working = workingDumpPath(file)
  if (!existsSync(working)) return
  const newer = !existsSync(file) || (await stat(working)).mtimeMs > (await stat(file)).mtimeMs
  if (newer) await promoteIfComplete(file, '')
  await rm(working, {force: true})
}

/** The working dump's identity (size and mtime) once promoted, or undefined when nothing new was promoted. */
async function promoteIfComplete(file: string, seen: string): Promise<string | undefined> {
  const working = workingDumpPath(file)
  const found = await stat(working).catch(() => undefined)
  if (!found) return undefined
  const identity = `${found.size}:${found.mtimeMs}`
  if (identity === seen) return undefined
  const bytes = await readFile(working)
  try {
    JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined // cut off mid-write, or being written now: the next look takes the complete one
  }
  // Written beside it, then renamed over it: a process killed at any point leaves the old dump or the new one.
  // No fsync: the dumps are rewritten every few seconds and can be megabytes, and a power cut is not what this
  // guards against (anvil never syncs its own dump either).
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, bytes)
  await rename(temporary, file)
  return identity
}
