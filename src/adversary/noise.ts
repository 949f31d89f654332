import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {CommittedCheckpoints, CountingSession, type StrategyContext, type StrategyOutcome} from './context.js'
import {addNoise, cheaterStream, pickBlindly} from './fakeState.js'

/** The largest change noise makes to one weight. */
export const noiseAmplitude = 1e-5

/**
 * The checkpoints (indices into the schedule, 1..n for n segments) the noise strategy perturbs:
 * ceil(n / 2) of them, chosen with the cheater's seed.
 */
export function noisedCheckpoints({segmentCount, seed}: {segmentCount: number; seed: number}): number[] {
  const pool = Array.from({length: segmentCount}, (_, i) => i + 1)
  return pickBlindly(cheaterStream('noise', seed, 'checkpoints'), pool, Math.ceil(segmentCount / 2))
}

/**
 * noise: trains honestly; at each perturbed checkpoint it commits the weights plus uniform noise in
 * [-1e-5, 1e-5) while training continues from the unperturbed state. A perturbed checkpoint c fakes
 * segment c - 1 (its end) and segment c (its start, so the replay leaves the committed trajectory).
 */
export async function noise(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const schedule = checkpointSchedule(spec)
  const segmentCount = schedule.length - 1
  const noised = new Set(noisedCheckpoints({segmentCount, seed: context.seed}).map((i) => schedule[i] as number))
  const training = await CountingSession.open(context)
  try {
    const committed = new CommittedCheckpoints(context)
    await committed.commit(await training.snapshot())
    await training.run(taskStepRange(spec).end, {
      stopAt: new Set(schedule),
      onBoundary: async (step) => {
        const honest = (await training.snapshot())
        await committed.commit(noised.has(step) ? addNoise(honest, cheaterStream('noise', context.seed, `step=${step}`), noiseAmplitude) : honest)
      },
    })
    const faked = new Set<number>()
    for (const [index, step] of schedule.entries()) {
      if (!noised.has(step)) continue
      faked.add(index - 1)
      if (index < segmentCount) faked.add(index)
    }
    return training.outcome(committed, [...faked].sort((a, b) => a - b))
  } finally {
    training.dispose()
  }
}
