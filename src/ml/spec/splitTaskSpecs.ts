import type {Hex} from 'viem'

import {JobSpecError} from './errors.js'
import type {JobSpec} from './schema.js'

/**
 * The task specs a job is submitted as (docs/market.md, section 4): a job with `split: {tasks: N}` becomes N
 * specs, the same job with `split: {tasks: N, index: i}` for i = 0 .. N - 1 (task i trains the i-th range of
 * the job's steps, from task i - 1's final checkpoint); with `shards: K` each of the N ranges (rounds) is K
 * tasks, one per shard, in round order ({@link roundTaskSpecs}; a later round's `start` is known only once the
 * round before has settled, so it is absent here). Any other job is its own single task. A spec that is already
 * one task of a split job (an index set) gives the whole job's tasks, so the result never depends on which
 * task it was read from.
 */
export function splitTaskSpecs(spec: JobSpec): JobSpec[] {
  if (spec.split === undefined) return [spec]
  const {tasks, shards} = spec.split
  if (shards !== undefined) return Array.from({length: tasks}, (_, round) => roundTaskSpecs(spec, round, undefined)).flat()
  return Array.from({length: tasks}, (_, index) => ({...spec, split: {tasks, index}}))
}

/**
 * The K task specs of round `round` of a parallel split (`split.shards: K`): shard k trains the round's range on
 * the k-th shard of the training data, from `start` (the mean of the round before's final checkpoints; none in
 * round 0, which starts from the seed-derived initial state).
 */
export function roundTaskSpecs(spec: JobSpec, round: number, start: Hex | undefined): JobSpec[] {
  const {tasks, shards} = spec.split ?? {tasks: 1}
  if (shards === undefined) throw new JobSpecError(`split.shards: expected a parallel split, got none in ${spec.name}`, {field: 'split.shards'})
  return Array.from({length: shards}, (_, shard) => ({...spec, split: {tasks, shards, index: round, shard, ...(start === undefined ? {} : {start})}}))
}
