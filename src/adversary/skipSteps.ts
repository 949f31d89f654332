import {initialCheckpoint} from '../ml/checkpoint/initialCheckpoint.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {CommittedCheckpoints, CountingSession, type StrategyContext, type StrategyOutcome} from './context.js'
import {interpolate, relabel} from './fakeState.js'

/**
 * skip-steps: trains the first ceil(steps / 2) steps honestly, commits that state (relabelled) as the
 * final checkpoint and, for every checkpoint in between, the linear interpolation from the honest step-0
 * state to it (weights and adam moments; headers exact). Step 0 is honest; every segment end is faked.
 */
export async function skipSteps(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const steps = spec.training.steps
  const schedule = checkpointSchedule(spec)
  const trainTo = Math.ceil(steps / 2)
  const training = await CountingSession.open(context)
  try {
    await training.run(trainTo)
    const reached = training.snapshot()
    const initial = initialCheckpoint(spec)
    const committed = new CommittedCheckpoints(context)
    for (const step of schedule) {
      if (step === 0) await committed.commit(initial)
      else if (step === steps) await committed.commit(relabel(spec, reached, steps))
      else await committed.commit(interpolate(spec, initial, reached, step / steps, step))
    }
    return training.outcome(committed, schedule.slice(1).map((_, i) => i))
  } finally {
    training.dispose()
  }
}
