import type {JobSpec} from './schema.js'

/**
 * The task specs a job is submitted as (docs/market.md, section 4): a job with `split: {tasks: N}` becomes N
 * specs, the same job with `split: {tasks: N, index: i}` for i = 0 .. N - 1 (task i trains the i-th range of
 * the job's steps, from task i - 1's final checkpoint); any other job is its own single task. A spec that is
 * already one task of a split job (an index set) gives the whole job's tasks, so the result never depends on
 * which task it was read from.
 */
export function splitTaskSpecs(spec: JobSpec): JobSpec[] {
  if (spec.split === undefined) return [spec]
  const {tasks} = spec.split
  return Array.from({length: tasks}, (_, index) => ({...spec, split: {tasks, index}}))
}
