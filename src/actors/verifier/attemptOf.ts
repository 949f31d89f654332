import type {Task} from '../../protocol/types.js'

/**
 * A proof is one attempt at a task: `id:commitBlock`. A task re-verified after a forced error or a dispute
 * is a new proof (or the same one, again), so skips and lost races are remembered per attempt.
 */
export function attemptOf(task: Pick<Task, 'id' | 'commitBlock'>): string {
  return `${task.id}:${task.commitBlock}`
}
