import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {CommittedCheckpoints, CountingSession, type StrategyContext, type StrategyOutcome} from './context.js'
import {interpolate, relabel} from './fakeState.js'

/**
 * skip-steps: trains the first ceil(steps / 2) steps of the task's range honestly, commits that state
 * (relabelled) as the final checkpoint and, for every checkpoint in between, the linear interpolation from the
 * honest start state (step 0, or a split task's start) to it (weights and adam moments; headers exact). The
 * start is honest; every segment end is faked.
 */
export async function skipSteps(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const {start, end} = taskStepRange(spec)
  const steps = end - start
  const schedule = checkpointSchedule(spec)
  const trainTo = start + Math.ceil(steps / 2)
  const training = await CountingSession.open(context)
  try {
    const initial = (await training.snapshot())
    await training.run(trainTo)
    const reached = (await training.snapshot())
    const committed = new CommittedCheckpoints(context)
    for (const step of schedule) {
      if (step === start) await committed.commit(initial)
      else if (step === end) await committed.commit(relabel(spec, reached, end))
      else await committed.commit(interpolate(spec, initial, reached, (step - start) / steps, step))
    }
    return training.outcome(committed, schedule.slice(1).map((_, i) => i))
  } finally {
    training.dispose()
  }
}
