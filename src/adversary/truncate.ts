import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {CommittedCheckpoints, CountingSession, type StrategyContext, type StrategyOutcome} from './context.js'
import {relabel} from './fakeState.js'

/**
 * truncate: trains honestly to the checkpoint that starts segment floor(n / 2) (n segments), then pads
 * every later checkpoint with that state relabelled to the later step (a well-formed header, so the
 * replay gets as far as comparing hashes). Segments floor(n / 2) .. n - 1 are faked.
 */
export async function truncate(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const schedule = checkpointSchedule(spec)
  const segments = schedule.length - 1
  const stopIndex = Math.floor(segments / 2)
  const stopStep = schedule[stopIndex] as number
  const training = await CountingSession.open(context)
  try {
    const committed = new CommittedCheckpoints(context)
    await committed.commit(await training.snapshot())
    await training.run(stopStep, {stopAt: new Set(schedule), onBoundary: async () => void (await committed.commit(await training.snapshot()))})
    const last = (await training.snapshot())
    for (const step of schedule.slice(stopIndex + 1)) await committed.commit(relabel(spec, last, step))
    return training.outcome(committed, Array.from({length: segments - stopIndex}, (_, i) => stopIndex + i))
  } finally {
    training.dispose()
  }
}
