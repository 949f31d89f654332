import type {JobSpec} from '../spec/schema.js'
import {taskStepRange} from './taskStepRange.js'

/**
 * The absolute steps at which a task checkpoints: its range's start, start + k, start + 2k, ... and its end
 * (`taskStepRange`, k = `proof.checkpointInterval`), ascending and distinct. A job that is not split (or a job
 * file that declares `split` without an index) is the range [0, training.steps): 0, k, 2k, ..., steps. Segment
 * i runs from schedule[i] to schedule[i + 1]. A task that stops early (`training.stopAt`) commits a prefix of
 * this schedule (docs/market.md, section 2).
 */
export function checkpointSchedule(spec: Pick<JobSpec, 'training' | 'split' | 'proof'>): number[] {
  const k = spec.proof.checkpointInterval
  const {start, end} = taskStepRange(spec)
  const out: number[] = []
  for (let s = start; s < end; s += k) out.push(s)
  out.push(end)
  return out
}
