import type {JobSpec} from '../spec/schema.js'

/** The absolute steps a task trains, `[start, end)`. */
export type StepRange = {start: number; end: number}

/**
 * A split task (`split: {tasks: N, index: i}`) trains the i-th of N equal ranges of the job's steps, with the
 * job's own step numbers, so its batches are the unsplit run's; any other spec trains `[0, training.steps)`.
 * A job file that declares `split` without an index is the whole job (the submitter makes the task specs).
 */
export function taskStepRange(spec: Pick<JobSpec, 'training' | 'split'>): StepRange {
  const {steps} = spec.training
  if (spec.split?.index === undefined) return {start: 0, end: steps}
  const size = steps / spec.split.tasks
  return {start: spec.split.index * size, end: (spec.split.index + 1) * size}
}
