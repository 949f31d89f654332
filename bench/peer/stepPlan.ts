import type {JobSpec} from '../../src/ml/spec/index.js'

/** Which steps a side runs: `warmupSteps` untimed, then `repeats` windows of `timedSteps` timed steps each. */
export type StepPlan = {warmupSteps: number; timedSteps: number; repeats: number}

/**
 * The plan for `spec` and the spec to train it with: warm-up is the job's first proof segment (one checkpoint
 * interval), each timed window `timedSteps` steps (a multiple of the interval, so every window stores as many
 * checkpoints), and the job's step count set to cover them all.
 */
export function stepPlan(spec: JobSpec, timedSteps: number, repeats = 3): {plan: StepPlan; spec: JobSpec} {
  const interval = spec.proof.checkpointInterval
  const timed = Math.max(interval, Math.round(timedSteps / interval) * interval)
  const plan = {warmupSteps: interval, timedSteps: timed, repeats}
  return {plan, spec: {...spec, training: {...spec.training, steps: interval + repeats * timed}}}
}
