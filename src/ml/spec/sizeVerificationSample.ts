import {segmentsForWeakestCheat} from '../../plan/segmentsForWeakestCheat.js'
import {checkpointSchedule} from '../train/checkpointSchedule.js'
import {JobSpecError} from './errors.js'
import type {JobSpec} from './schema.js'

/**
 * Sizes `verification.segments` from `verification.targetDetection` (docs/economics.md): the smallest sample
 * whose chance of catching the weakest cheat (forge) reaches the target, for this task's segment count. A job
 * that gives both keeps its segment count when that reaches the target. Every party that parses the job file
 * derives the same count, and the submitter publishes the spec with it filled in.
 *
 * @param explicit `verification.segments` as written (undefined: not given)
 * @throws JobSpecError when the given segment count falls short of the target
 */
export function sizeVerificationSample(spec: JobSpec, explicit: unknown, source: string): JobSpec {
  const target = spec.verification.targetDetection
  if (target === undefined) return spec
  const segmentCount = checkpointSchedule(spec).length - 1
  const needed = segmentsForWeakestCheat({segmentCount, target})
  if (explicit === undefined) return {...spec, verification: {...spec.verification, segments: needed}}
  if (spec.verification.segments >= needed) return spec
  throw new JobSpecError(
    `${source}: verification.segments: expected at least ${needed} to reach verification.targetDetection ${target} against forge with ${segmentCount} segments, got ${spec.verification.segments}`,
    {field: 'verification.segments'},
  )
}
