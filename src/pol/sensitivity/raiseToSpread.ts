import type {CheckpointDistances, Distances} from '../distances/parameterDistances.js'
import {distanceMetrics, type DistanceLimits, type Thresholds} from '../distances/thresholds.js'

/** Each limit set in `limits`, raised to `margin` times the distance `spread` reached where that is larger; unset limits stay unset. */
function raise(limits: DistanceLimits | undefined, spread: Distances, margin: number): DistanceLimits | undefined {
  if (limits === undefined) return undefined
  const raised: DistanceLimits = {}
  for (const metric of distanceMetrics) {
    const limit = limits[metric]
    if (limit !== undefined) raised[metric] = Math.max(limit, margin * spread[metric])
  }
  return raised
}

/**
 * A segment's own limits: the profiled thresholds, each raised to `margin` times what the segment's replays on other
 * runtimes reached (segmentSpread) where that is further. The whole-vector limits and `update` are raised by the
 * spread's whole-vector distances, every tensor's limits (its `perTensor` entry, else `eachTensor`) by its own; a
 * metric the thresholds do not check stays unchecked, and no limit is lowered.
 */
export function raiseToSpread(thresholds: Thresholds, spread: CheckpointDistances, margin: number): Thresholds {
  const perTensor: Record<string, DistanceLimits> = {}
  for (const tensor of spread.perTensor) {
    const raised = raise(thresholds.perTensor?.[tensor.name] ?? thresholds.eachTensor, tensor, margin)
    if (raised !== undefined) perTensor[tensor.name] = raised
  }
  const update = thresholds.update === undefined ? undefined : Math.max(thresholds.update, margin * (spread.update ?? 0))
  return {
    ...raise(thresholds, spread.whole, margin),
    ...(update === undefined ? {} : {update}),
    perTensor,
    ...(thresholds.eachTensor === undefined ? {} : {eachTensor: thresholds.eachTensor}),
  }
}
