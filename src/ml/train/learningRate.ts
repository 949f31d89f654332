import type {JobSpec} from '../spec/schema.js'

/**
 * The learning rate of step `step` (0-based, absolute), as a float32 scalar (docs/checkpoint-format.md,
 * "Training step"): `training.optimizer.learningRate`, or with `training.schedule` a linear warm-up,
 * lr x (step + 1) / warmupSteps, then constant or a cosine down to minLearningRate at the last step:
 * min + (lr - min) x (1 + cos(pi x (step - warmup) / (steps - warmup))) / 2. Computed in doubles (V8's fdlibm
 * Math.cos) and rounded to float32 once.
 */
export function learningRateAt(spec: Pick<JobSpec, 'training'>, step: number): number {
  const {optimizer, schedule, steps} = spec.training
  const lr = optimizer.learningRate
  if (!schedule) return Math.fround(lr)
  const {warmupSteps, decay, minLearningRate} = schedule
  if (step < warmupSteps) return Math.fround((lr * (step + 1)) / warmupSteps)
  if (decay === 'constant' || steps <= warmupSteps) return Math.fround(lr)
  const progress = (step - warmupSteps) / (steps - warmupSteps)
  return Math.fround(minLearningRate + ((lr - minLearningRate) * (1 + Math.cos(Math.PI * progress))) / 2)
}
