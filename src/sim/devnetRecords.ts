import {writeDevnetProcesses} from './devnetProcesses.js'
import type {DevnetRun} from './devnetRun.js'
import {type PersistedDevnet, writeDevnetState} from './devnetState.js'
import type {ActorHandle} from './spawnActor.js'

/** Saves the run's record (one write at a time, atomically): after the deploy, each finished job, and at stop. */
export function persistRun(run: DevnetRun, update: Partial<PersistedDevnet> = {}): Promise<void> {
  const {statePaths} = run.paths
  if (!statePaths || !run.record) return Promise.resolve()
  run.record = {
    ...run.record,
    ...update,
    dropouts: [...run.dropouts],
    marketSamples: [...(run.saved?.marketSamples ?? []), ...(run.sampler?.samples ?? [])],
    elapsedSeconds: (run.saved?.elapsedSeconds ?? 0) + (performance.now() - run.runStarted) / 1000,
  }
  const next = run.record
  run.writing = run.writing.catch(() => {}).then(() => writeDevnetState(statePaths.chain, next))
  return run.writing
}

/** processes.json in the state dir (for `devnet status` / `down`) and, with --state, beside the actors' devnet.json. */
export function recordProcesses(run: DevnetRun): Promise<void> {
  run.recording = run.recording.catch(() => {}).then(() => writeProcesses(run))
  return run.recording
}

/** After an actor started or ended: processes.json follows, until the devnet stops (then it is removed). */
export function recordProcessesWhileUp(run: DevnetRun): void {
  if (!run.chainStopped) void recordProcesses(run).catch(() => {})
}

async function writeProcesses(run: DevnetRun): Promise<void> {
  const {anvil, actors, paths} = run
  const describe = ({name, role, pid, exit}: ActorHandle) => ({name, role, pid, exited: exit !== undefined})
  const value = {
    devnetPid: process.pid,
    anvilPid: anvil.pid,
    rpcUrl: anvil.status === 'listening' ? anvil.rpcUrl : undefined,
    stateFile: paths.statePaths?.chain,
    startedAt: new Date(performance.timeOrigin).toISOString(),
    ready: run.ready,
    actors: actors.filter((actor) => actor.role !== 'submitter').map(describe),
    submitters: actors.filter((actor) => actor.role === 'submitter').map(describe),
  }
  await writeDevnetProcesses(paths.stateDir, value)
  if (paths.statePaths) await writeDevnetProcesses(paths.statePaths.dir, value)
}
