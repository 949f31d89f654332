import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {CommittedCheckpoints, CountingSession, type StrategyContext, type StrategyOutcome} from './context.js'
import {cheaterStream, linearise, pickBlindly} from './fakeState.js'

/**
 * The segments forge fakes: ceil((n - 1) / 2) of the first n - 1 (the last segment is always replayed,
 * so it is always trained), chosen with the cheater's seed only: the verifier's randomness comes from a
 * block after the commit, so no choice made before it can aim at the segments that will not be sampled.
 */
export function forgedSegments({segmentCount, seed}: {segmentCount: number; seed: number}): number[] {
  const pool = Array.from({length: Math.max(0, segmentCount - 1)}, (_, i) => i)
  return pickBlindly(cheaterStream('forge', seed, 'segments'), pool, Math.ceil(pool.length / 2))
}

/**
 * forge: the least detectable cheap proof we know for this verifier. It passes every check but the replay
 * of a forged segment: the manifest, spec and data set hashes are the job's, the root recomputes, every
 * blob is stored, step 0 is the seed-derived state. Segments go in order from the committed state:
 * an honest segment trains all its steps; a forged one runs one probe step, then commits the
 * linearised end state ({@link linearise}: plausible weights and adam moments, exact t and beta products),
 * and training continues from that committed state, so every honest segment replays bit for bit.
 */
export async function forge(context: StrategyContext): Promise<StrategyOutcome> {
  const {spec} = context
  const schedule = checkpointSchedule(spec)
  const segmentCount = schedule.length - 1
  const faked = forgedSegments({segmentCount, seed: context.seed})
  const fakedSet = new Set(faked)
  const training = await CountingSession.open(context)
  try {
    const committed = new CommittedCheckpoints(context)
    let current = (await training.snapshot())
    await committed.commit(current)
    for (let segment = 0; segment < segmentCount; segment++) {
      const start = schedule[segment] as number
      const end = schedule[segment + 1] as number
      if (fakedSet.has(segment)) {
        await training.run(start + 1)
        const probe = (await training.snapshot())
        current = linearise(spec, current, probe, end - start)
        training.load(current)
      } else {
        await training.run(end)
        current = (await training.snapshot())
      }
      await committed.commit(current)
    }
    return training.outcome(committed, faked)
  } finally {
    training.dispose()
  }
}
