import {existsSync} from 'node:fs'
import path from 'node:path'

import {type DevnetConfig, devnetConfigPath, readDevnetConfig} from '../chain/devnetConfig.js'
import {connect} from '../protocol/connect.js'
import {listTasks} from '../protocol/listTasks.js'
import {type TaskStatus, verdictOf} from '../protocol/types.js'
import {isAlive} from '../util/processLiveness.js'
import {NoDevnetRunningError, runningDevnet} from './devnetProcesses.js'

export type DevnetStatus = {
  running: true
  /** `starting`: the process is up but has not written devnet.json yet (anvil starting, deploying). */
  phase: 'starting' | 'up'
  pid: number
  stateDir: string
  startedAt?: string | undefined
  stateFile?: string | undefined
  rpcUrl?: string | undefined
  chainId?: number | undefined
  head?: {block: string; timestamp: number} | undefined
  contracts?: DevnetConfig['contracts'] | undefined
  anvil: {pid: number | undefined; alive: boolean}
  actors: {name: string; role: string | undefined; pid: number | undefined; alive: boolean}[]
  /** Task count per status (only the statuses present), read from the chain. */
  tasksByStatus?: Partial<Record<TaskStatus, number>> | undefined
  tasks?: {id: string; status: TaskStatus; verdict: string; solver: string; attempts: number}[] | undefined
}

/**
 * What `gensyn devnet status` shows: the processes (from processes.json, each checked alive) and the chain
 * (head, contracts, tasks by status). A NoDevnetRunningError when there is no live devnet in the state dir.
 */
export async function readDevnetStatus(stateDirOption: string): Promise<DevnetStatus> {
  const stateDir = path.resolve(stateDirOption)
  const processes = await runningDevnet(stateDir)
  if (!processes) throw new NoDevnetRunningError(stateDirOption)
  const status: DevnetStatus = {
    running: true,
    phase: 'starting',
    pid: processes.devnetPid,
    stateDir,
    startedAt: processes.startedAt,
    stateFile: processes.stateFile,
    rpcUrl: processes.rpcUrl,
    anvil: {pid: processes.anvilPid, alive: isAlive(processes.anvilPid)},
    actors: [...processes.actors, ...(processes.submitters ?? [])].map((actor) => ({name: actor.name, role: actor.role, pid: actor.pid, alive: !actor.exited && isAlive(actor.pid)})),
  }
  if (!existsSync(devnetConfigPath(stateDir))) return status
  const config = await readDevnetConfig(stateDir)
  const connection = await connect({stateDir})
  const [block, tasks] = await Promise.all([connection.publicClient.getBlock({blockTag: 'latest'}), listTasks(connection)])
  const tasksByStatus: Partial<Record<TaskStatus, number>> = {}
  for (const task of tasks) tasksByStatus[task.status] = (tasksByStatus[task.status] ?? 0) + 1
  return {
    ...status,
    phase: 'up',
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    head: {block: block.number.toString(), timestamp: Number(block.timestamp)},
    contracts: config.contracts,
    tasksByStatus,
    tasks: tasks.map((task) => ({id: task.id.toString(), status: task.status, verdict: verdictOf(task), solver: task.solver, attempts: task.attempts})),
  }
}
