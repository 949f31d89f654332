import {firstSamples, type Samples} from '../ml/data/samples.js'
import {samplesFor} from '../ml/data/samplesFor.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {batchIndices} from '../ml/train/batchIndices.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {batchOf, TrainingSession} from '../ml/train/trainingSession.js'
import {CommittedCheckpoints, CountingSession, type StrategyContext, type StrategyOutcome} from './context.js'

/** The share of the training set the wrong-data cheater holds (the first tenth). */
export const wrongDataShare = 0.1

/** The number of training samples the wrong-data cheater holds: the first tenth, rounded up. */
export function wrongDataSize(spec: JobSpec): number {
  return Math.max(1, Math.ceil(samplesFor(spec, 'train').count * wrongDataShare))
}

/**
 * A training session that only has the first `held` images: each index of the job's batch order is
 * folded modulo `held`, so the batches are (mostly) other samples than the job's.
 */
class SubsetSession extends TrainingSession {
  private readonly held: Samples

  constructor(spec: JobSpec, held: number) {
    super(spec)
    // the job's own samples (mapped ones for a private job), cut to the first `held`
    this.held = firstSamples(this.data, held)
  }

  override batch(step: number): {x: Float32Array; y: Float32Array; indices: Int32Array} {
    const {batchSize, seed} = this.spec.training
    return batchOf(this.held, batchIndices({seed, step, batchSize, datasetSize: this.data.count}).map((i) => i % this.held.count))
  }
}

/**
 * wrong-data: the honest initial state and every step run, but on the wrong batches (see SubsetSession),
 * while the manifest names the job's data set hash. Every segment is faked.
 */
export async function wrongData(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const schedule = checkpointSchedule(spec)
  const training = await CountingSession.open(context, (s) => new SubsetSession(s, wrongDataSize(s)))
  try {
    const committed = new CommittedCheckpoints(context)
    await committed.commit(await training.snapshot())
    await training.run(taskStepRange(spec).end, {stopAt: new Set(schedule), onBoundary: async () => void (await committed.commit(await training.snapshot()))})
    return training.outcome(committed, schedule.slice(1).map((_, i) => i))
  } finally {
    training.dispose()
  }
}
