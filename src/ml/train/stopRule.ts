import type {JobSpec} from '../spec/schema.js'

/** A checkpoint's test metrics, as the early-stop rule measures them (`evaluateCheckpoint`). */
export type CheckpointAccuracy = {step: number; testAccuracy: number; testLoss?: number | undefined}

type Target = {metric: 'testAccuracy' | 'testLoss'; value: number}

/** The job's early-stop target: test accuracy at least, or test loss at most (`training.stopAt`). */
function targetOf(spec: Pick<JobSpec, 'training'>): Target | undefined {
  const stopAt = spec.training.stopAt
  if (stopAt?.testAccuracy !== undefined) return {metric: 'testAccuracy', value: stopAt.testAccuracy}
  if (stopAt?.testLoss !== undefined) return {metric: 'testLoss', value: stopAt.testLoss}
  return undefined
}

/** How far a measurement is past the target, in the solver's favour when positive (accuracy above, loss below). */
function beyond(target: Target, measured: CheckpointAccuracy): number {
  const value = measured[target.metric] ?? Number.NaN
  return target.metric === 'testAccuracy' ? value - target.value : target.value - value
}

const describe = (target: Target, measured: CheckpointAccuracy | undefined) =>
  `${target.metric === 'testAccuracy' ? 'test accuracy' : 'test loss'} ${measured?.[target.metric]}`
const relation = (target: Target, reaches: boolean) =>
  target.metric === 'testAccuracy' ? (reaches ? '>=' : 'is below') : reaches ? '<=' : 'is above'

/** True when the job stops early and `measured` reaches its target (`training.stopAt`). */
export function reachesStopTarget(spec: Pick<JobSpec, 'training'>, measured: Pick<CheckpointAccuracy, 'testAccuracy' | 'testLoss'>): boolean {
  const target = targetOf(spec)
  return target !== undefined && beyond(target, {step: 0, ...measured}) >= 0
}

/**
 * What is wrong with where a proof ended, by the early-stop rule of docs/market.md (section 2), or undefined
 * when it is right. `accuracies` are the test metrics of the proof's checkpoints after its first (the task's
 * start is never a stop point), in step order; `maxSteps` the steps of the task's range and `totalSteps` the
 * steps the proof performed. When totalSteps < maxSteps the last checkpoint must reach the target and no earlier
 * one may; when they are equal, no checkpoint before the last may. `margin` (>= 0, in the metric's units)
 * counts a measurement within that distance of the target in the solver's favour: 0 when the metrics are
 * measured on the proof's own runtime (bit for bit the solver's), more when they come from another runtime.
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
  const target = targetOf(spec)
  if (target === undefined) return totalSteps === maxSteps ? undefined : `the proof ends after ${totalSteps} of ${maxSteps} steps, but the job has no training.stopAt`
  const field = `training.stopAt.${target.metric} ${target.value}`
  const early = accuracies.slice(0, -1).find((a) => beyond(target, a) >= margin)
  if (early) return `stop rule: checkpoint at step ${early.step} reaches ${describe(target, early)} ${relation(target, true)} ${field}, so the task had to stop there`
  const last = accuracies.at(-1)
  if (totalSteps < maxSteps && (last === undefined || beyond(target, last) < -margin))
    return `stop rule: the proof stops after ${totalSteps} of ${maxSteps} steps at step ${last?.step}, whose ${describe(target, last)} ${relation(target, false)} ${field}`
  return undefined
}
