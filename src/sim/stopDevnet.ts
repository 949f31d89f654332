import path from 'node:path'

import {isAlive} from '../util/processLiveness.js'
import {NoDevnetRunningError, pidsOf, runningDevnet} from './devnetProcesses.js'

export type StopDevnetOptions = {
  stateDir: string
  /** How long the devnet gets to stop its actors, write its report and stop anvil before SIGKILL. Default 120 000 ms. */
  graceMs?: number | undefined
}

export type StoppedDevnet = {
  pid: number
  /** Every pid processes.json named (devnet, anvil, actors): all gone now. */
  pids: number[]
  /** The pids still alive after the grace period, killed with SIGKILL (empty after a clean stop). */
  killed: number[]
  seconds: number
  /** Where the chain was persisted (`--state`), if it was. */
  stateFile?: string | undefined
  report: string
}

/**
 * `gensyn devnet down`: SIGTERM to the devnet, which stops its actors (each finishes its step), reads and writes
 * the report, and stops anvil (which dumps its state with --state). Waits until every process it listed is gone;
 * whatever is still alive after the grace period gets SIGKILL (with --state, anvil's last interval dump is kept).
 */
export async function stopDevnet(options: StopDevnetOptions): Promise<StoppedDevnet> {
  const stateDir = path.resolve(options.stateDir)
  const started = performance.now()
  const processes = await runningDevnet(stateDir)
  if (!processes) throw new NoDevnetRunningError(options.stateDir)
  const pids = pidsOf(processes)
  signal(processes.devnetPid, 'SIGTERM')
  const graceMs = options.graceMs ?? 120_000
  let killed: number[] = []
  if (!(await waitUntilGone(pids, graceMs))) {
    killed = pids.filter((pid) => isAlive(pid))
    for (const pid of killed) signal(pid, 'SIGKILL')
    await waitUntilGone(pids, 10_000)
  }
  return {
    pid: processes.devnetPid,
    pids,
    killed,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    stateFile: processes.stateFile,
    report: path.join(stateDir, 'report.json'),
  }
}

async function waitUntilGone(pids: readonly number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (pids.some((pid) => isAlive(pid))) {
    if (Date.now() > until) return false
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return true
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}
