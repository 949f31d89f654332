import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {BaseError} from '../errors/base.js'
import {isAlive} from '../util/processLiveness.js'

/** File name, inside a state dir, of the list of a running devnet's processes. */
export const processesFile = 'processes.json'

/**
 * Who is running: `devnet status` and `devnet down` read it, and the orphan tests check that every pid in it
 * is gone after a stop. Written by the devnet process itself; removed when it stops cleanly.
 */
export type DevnetProcesses = {
  devnetPid: number
  anvilPid?: number | undefined
  /** The role loops (solvers, verifiers, whistleblowers). */
  actors: DevnetProcess[]
  /** The `gensyn submit --wait` processes spawned so far, one per job. */
  submitters?: DevnetProcess[] | undefined
  /** Known once anvil listens. */
  rpcUrl?: string | undefined
  /** The `--state FILE` the chain is persisted to, if any. */
  stateFile?: string | undefined
  startedAt?: string | undefined
  /** The devnet has written devnet.json and spawned its actors (what `devnet up --detach` waits for). */
  ready?: boolean | undefined
}

/** `exited`: it has exited (a submitter whose job is done, a dropout); its pid may since belong to another process. */
export type DevnetProcess = {name: string; role?: string | undefined; pid: number | undefined; exited?: boolean | undefined}

export class NoDevnetRunningError extends BaseError {
  override name = 'NoDevnetRunningError'
  constructor(stateDir: string) {
    super(`no devnet running in ${stateDir}`, {details: 'Start one with `gensyn devnet up --detach`, or pass the --state-dir it runs in.'})
  }
}

export async function writeDevnetProcesses(stateDir: string, value: DevnetProcesses): Promise<void> {
  await mkdir(stateDir, {recursive: true})
  const file = path.join(stateDir, processesFile)
  // Atomic: `devnet status` may read it at any moment.
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(value, null, 2))
  await rename(temporary, file)
}

/** The processes file as written, or undefined when there is none (or it is unreadable). */
export async function readDevnetProcesses(stateDir: string): Promise<DevnetProcesses | undefined> {
  try {
    const value = JSON.parse(await readFile(path.join(stateDir, processesFile), 'utf8')) as DevnetProcesses
    return typeof value.devnetPid === 'number' ? value : undefined
  } catch {
    return undefined
  }
}

/** The devnet running in `stateDir`, or undefined when none is (no file, or a stale one from a devnet that died). */
export async function runningDevnet(stateDir: string): Promise<DevnetProcesses | undefined> {
  const processes = await readDevnetProcesses(stateDir)
  return processes && isAlive(processes.devnetPid) ? processes : undefined
}

export async function assertNoDevnetRunning(stateDir: string): Promise<void> {
  const previous = await runningDevnet(stateDir)
  if (!previous || previous.devnetPid === process.pid) return
  const rpc = previous.rpcUrl ? `, rpc ${previous.rpcUrl}` : ''
  throw new BaseError(`a devnet is already running in ${stateDir} (pid ${previous.devnetPid}${rpc}): stop it with \`gensyn devnet down --state-dir ${stateDir}\`, or pass another --state-dir`, {
    details: 'Ctrl-C where it runs in the foreground stops it too.',
  })
}

/** Every pid a processes file names that has not exited: the devnet, anvil and the live actors. */
export function pidsOf(processes: DevnetProcesses): number[] {
  const actors = [...processes.actors, ...(processes.submitters ?? [])].filter((actor) => !actor.exited).map((actor) => actor.pid)
  return [processes.devnetPid, processes.anvilPid, ...actors].filter((pid): pid is number => pid !== undefined)
}
