import type {Checkpoint} from '../checkpoint/types.js'
import type {JobSpec} from '../spec/schema.js'
import {TrainingSession, type RunOptions, type TrainingSessionOptions} from './trainingSession.js'

/**
 * Trains `spec` from the state `from` to step `toStep` on the active backend and returns the state there: a segment's
 * replay, for a verifier, a profile or a spread's second runtime.
 */
export async function trainSegment(
  spec: JobSpec,
  from: Checkpoint,
  toStep: number,
  options: TrainingSessionOptions & Pick<RunOptions, 'yieldEveryMs'> = {},
): Promise<Checkpoint> {
  const session = new TrainingSession(spec, {threads: options.threads})
  try {
    session.load(from)
    await session.run(toStep, {yieldEveryMs: options.yieldEveryMs})
    return await session.snapshot()
  } finally {
    session.dispose()
  }
}
