import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {Hex} from 'viem'

/** A proof the solver made for a task: what it commits (or sealed) on chain. */
export type SolverProof = {proofRoot: Hex; manifestHash: Hex}

/**
 * What a solver keeps per task so that a crash or Ctrl-C loses neither training nor the secret behind its
 * claim: without the secret it could not reveal a forced error (docs/disputes.md, "Task lifecycle").
 */
export type SolverState = {
  taskId: bigint
  /** Checkpoints of the honest training stored so far, in step order. */
  checkpoints: {step: number; hash: Hex}[]
  /** The 32-byte secret whose keccak256 the claim committed to (written before the claim is sent). */
  secret?: Hex | undefined
  /** The honest proof, once trained. */
  honest?: SolverProof | undefined
  /** The proof committed on chain (the honest one, a cheat's, or a forced error's wrong one). */
  committed?: SolverProof | undefined
  /** The coin landed: the committed proof is deliberately wrong and the honest one is sealed. */
  forced?: boolean | undefined
  /** The forced error was revealed. */
  revealed?: boolean | undefined
}

type StoredTask = Omit<SolverState, 'taskId'>
type StoredFile = {version: 2; tasks: Record<string, StoredTask>}

function statePath(stateDir: string, address: Hex): string {
  return path.join(stateDir, 'solvers', `${address.toLowerCase()}.json`)
}

async function readFileState(stateDir: string, address: Hex): Promise<StoredFile> {
  try {
    const raw = JSON.parse(await readFile(statePath(stateDir, address), 'utf8')) as Partial<StoredFile> & {taskId?: string; checkpoints?: StoredTask['checkpoints']}
    if (raw.version === 2 && raw.tasks) return {version: 2, tasks: raw.tasks}
    // The first format held one task: {taskId, checkpoints}.
    if (raw.taskId !== undefined) return {version: 2, tasks: {[raw.taskId]: {checkpoints: raw.checkpoints ?? []}}}
  } catch {
    // No file yet (or unreadable): nothing saved.
  }
  return {version: 2, tasks: {}}
}

/** What a solver saved for a task, if anything. */
export async function readSolverState(stateDir: string, address: Hex, taskId: bigint): Promise<SolverState | undefined> {
  const stored = (await readFileState(stateDir, address)).tasks[taskId.toString()]
  return stored ? {...stored, taskId, checkpoints: stored.checkpoints ?? []} : undefined
}

/**
 * Saves one task's state beside the others' (atomically: a crash mid-write leaves the previous file).
 * `keep` lists the task ids still worth keeping; others are dropped so the file does not grow forever.
 */
export async function writeSolverState(stateDir: string, address: Hex, state: SolverState, keep?: readonly bigint[]): Promise<void> {
  const file = statePath(stateDir, address)
  const current = await readFileState(stateDir, address)
  const {taskId, ...stored} = state
  current.tasks[taskId.toString()] = stored
  if (keep) {
    const wanted = new Set([...keep, taskId].map(String))
    for (const id of Object.keys(current.tasks)) if (!wanted.has(id)) delete current.tasks[id]
  }
  await mkdir(path.dirname(file), {recursive: true})
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(current), {mode: 0o600})
  await rename(temporary, file)
}
