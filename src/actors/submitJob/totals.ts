import type {SubmittedTask} from './types.js'

/** The work units and escrow of all the tasks, summed. */
export function totals(tasks: readonly SubmittedTask[]): {workUnits: string; escrow: string} {
  const sum = (pick: (task: SubmittedTask) => string) => tasks.reduce((total, task) => total + BigInt(pick(task)), 0n).toString()
  return {workUnits: sum((task) => task.workUnits), escrow: sum((task) => task.escrow)}
}
