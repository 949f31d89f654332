import type {JobSpec} from '../spec/schema.js'

/** A checkpoint's test accuracy, as the early-stop rule measures it (`evaluateCheckpoint`). */
export type CheckpointAccuracy = {step: number; testAccuracy: number}

/** True when the job stops early and `testAccuracy` reaches its target (`training.stopAt.testAccuracy`). */
export function reachesStopTarget(spec: Pick<JobSpec, 'training'>, testAccuracy: number): boolean {
  const target = spec.training.stopAt?.testAccuracy
  return target !== undefined && testAccuracy >= target
}

/**
 * What is wrong with where a proof ended, by the early-stop rule of docs/market.md (section 2), or undefined
 * when it is right. `accuracies` are the test accuracies of the proof's checkpoints after its first (the task's
 * start is never a stop point), in step order; `maxSteps` the steps of the task's range and `totalSteps` the
 * steps the proof performed. When totalSteps < maxSteps the last checkpoint must reach the target and no earlier
 * one may; when they are equal, no checkpoint before the last may. `margin` (accuracy, >= 0) counts a
 * measurement within that distance of the target in the solver's favour: 0 when the accuracies are measured on
 * the proof's own runtime (bit for bit the solver's), more when they come from another runtime.
 */
export function stopRuleProblem({
  spec,
  accuracies,
  totalSteps,
  maxSteps,
  margin = 0,
}: {
  spec: Pick<JobSpec, 'training'>
  accuracies: readonly CheckpointAccuracy[]
  totalSteps: number
  maxSteps: number
  margin?: number
}): string | undefined {
  const target = spec.training.stopAt?.testAccuracy
  if (target === undefined) return totalSteps === maxSteps ? undefined : `the proof ends after ${totalSteps} of ${maxSteps} steps, but the job has no training.stopAt`
  const early = accuracies.slice(0, -1).find((a) => a.testAccuracy >= target + margin)
  if (early) return `stop rule: checkpoint at step ${early.step} reaches test accuracy ${early.testAccuracy} >= training.stopAt.testAccuracy ${target}, so the task had to stop there`
  const last = accuracies.at(-1)
  if (totalSteps < maxSteps && (last === undefined || last.testAccuracy < target - margin))
    return `stop rule: the proof stops after ${totalSteps} of ${maxSteps} steps at step ${last?.step}, whose test accuracy ${last?.testAccuracy} is below training.stopAt.testAccuracy ${target}`
  return undefined
}
