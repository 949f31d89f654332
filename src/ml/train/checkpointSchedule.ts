import type {JobSpec} from '../spec/schema.js'

/**
 * The steps at which a job checkpoints: 0, k, 2k, ... and the last step (`training.steps`), ascending and
 * distinct (k = `proof.checkpointInterval`). Segment i runs from schedule[i] to schedule[i + 1].
 */
export function checkpointSchedule(spec: JobSpec): number[] {
  const k = spec.proof.checkpointInterval
  const steps = spec.training.steps
  const out: number[] = []
  for (let s = 0; s < steps; s += k) out.push(s)
  out.push(steps)
  return out
}
