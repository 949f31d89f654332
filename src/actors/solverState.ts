import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {Hex} from 'viem'

export type SolverState = {taskId: bigint; checkpoints: {step: number; hash: Hex}[]}

function statePath(stateDir: string, address: Hex): string {
  return path.join(stateDir, 'solvers', `${address.toLowerCase()}.json`)
}

/** The checkpoints a solver already stored for a task, so a crash or Ctrl-C loses no training. */
export async function readSolverState(stateDir: string, address: Hex, taskId: bigint): Promise<SolverState | undefined> {
  try {
    const raw = JSON.parse(await readFile(statePath(stateDir, address), 'utf8')) as {taskId: string; checkpoints: SolverState['checkpoints']}
    return BigInt(raw.taskId) === taskId ? {taskId, checkpoints: raw.checkpoints} : undefined
  } catch {
    return undefined
  }
}

export async function writeSolverState(stateDir: string, address: Hex, state: SolverState): Promise<void> {
  const file = statePath(stateDir, address)
  await mkdir(path.dirname(file), {recursive: true})
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify({taskId: state.taskId.toString(), checkpoints: state.checkpoints}))
  await rename(temporary, file)
}
