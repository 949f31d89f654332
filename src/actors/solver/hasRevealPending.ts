import type {Task} from '../../protocol/types.js'
import {readSolverState} from '../solverState.js'
import type {SolverRun} from './types.js'

/** Whether a task of its own still waits for its forced error to be revealed: a one-task run stays until it is, since leaving would get an honest solver slashed. */
export async function hasRevealPending(run: SolverRun, tasks: readonly Task[]): Promise<boolean> {
  for (const task of tasks) if (task.solver === run.me && (await revealPending(run, task))) return true
  return false
}

async function revealPending(run: SolverRun, task: Task): Promise<boolean> {
  if (!['Committed', 'Verifying', 'Verified'].includes(task.status) || task.forcedRevealed) return false
  const state = await readSolverState(run.connection.stateDir, run.me, task.id)
  return state?.forced === true && state.revealed !== true && state.committed?.proofRoot === task.proofRoot
}
