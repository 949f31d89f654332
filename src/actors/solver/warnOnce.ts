import type {SolverRun} from './types.js'

/** Emits a warning once per task and message, so a duty retried every poll does not repeat itself. */
export function warnOnce(run: Pick<SolverRun, 'emit' | 'memory'>, taskId: bigint, message: string): void {
  const key = `${taskId}:${message}`
  if (run.memory.warned.has(key)) return
  run.memory.warned.add(key)
  run.emit({type: 'warning', taskId, message})
}
