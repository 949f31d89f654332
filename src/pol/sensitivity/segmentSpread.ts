import {runtimeIdString, type RuntimeId} from '../../ml/backend/runtimeId.js'
import {selectBackend} from '../../ml/backend/selectBackend.js'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {type SpreadBackend} from '../../ml/spec/schema.js'
import {trainSegment} from '../../ml/train/trainSegment.js'
import {responsiveYieldMs} from '../../ml/train/trainingSession.js'
import {parameterDistances, type CheckpointDistances, type Distances} from '../distances/parameterDistances.js'

/**
 * How a tolerance-mode judge measures a segment beyond the thresholds (docs/verification.md, "Segments that amplify
 * rounding"): it replays the segment on each of `backends` other than its own, and the segment's limits become the
 * thresholds raised to `margin` times the largest distance between those replays and its own.
 */
export type SpreadRule = {backends: SpreadBackend[]; margin: number}

/**
 * Both CPU backends, margin 2: the traced CNN segment's webgpu and cpu ends agree with each other to two or three
 * digits of their distance to wasm's, so the rule needs a factor above 1; 2 leaves every cheat that saves work beyond
 * it in the measured segments (docs/verification.md).
 */
export const defaultSpreadRule: SpreadRule = {backends: ['wasm', 'cpu'], margin: 2}

/** What a segment's replays on the other runtimes reached: the largest of each distance to the judge's own replay. */
export type SegmentSpread = {runtimes: string[]; margin: number; distances: CheckpointDistances}

export type SegmentSpreadParameters = {
  spec: JobSpec
  start: Checkpoint
  endStep: number
  /** The judge's own replay of the segment, and the runtime it ran on (restored before returning). */
  replayed: Checkpoint
  runtime: RuntimeId
  rule: SpreadRule
}

/**
 * Replays the segment from `start` on every backend of `rule` but the judge's own and returns, per distance, the
 * largest distance of those replays to the judge's: how far two honest runtimes land apart in this segment. Real
 * runtimes, not injected noise: random perturbations of the updates large enough to cross a decision the runtimes
 * split also sent ordinary MLP segments far beyond anything a runtime does (docs/verification.md). Leaves the
 * judge's backend selected.
 */
export async function segmentSpread({spec, start, endStep, replayed, runtime, rule}: SegmentSpreadParameters): Promise<SegmentSpread> {
  const runtimes: string[] = []
  let spread: CheckpointDistances | undefined
  try {
    for (const backend of rule.backends.filter((b) => b !== runtime.backend)) {
      runtimes.push(runtimeIdString(await selectBackend(backend)))
      const distances = parameterDistances(await trainSegment(spec, start, endStep, {yieldEveryMs: responsiveYieldMs}), replayed, start)
      spread = spread === undefined ? distances : largerDistances(spread, distances)
    }
  } finally {
    await selectBackend(runtime.backend, {wasmVariant: runtime.wasmVariant})
  }
  const none: Distances = {l1: 0, l2: 0, linf: 0, cosine: 0}
  return {runtimes, margin: rule.margin, distances: spread ?? {whole: none, update: 0, perTensor: []}}
}

const maxDistances = (a: Distances, b: Distances): Distances => ({
  l1: Math.max(a.l1, b.l1),
  l2: Math.max(a.l2, b.l2),
  linf: Math.max(a.linf, b.linf),
  cosine: Math.max(a.cosine, b.cosine),
})

/** The larger of each distance (the tensors are the same job's, in the same order). */
function largerDistances(a: CheckpointDistances, b: CheckpointDistances): CheckpointDistances {
  const update = a.update === undefined || b.update === undefined ? (a.update ?? b.update) : Math.max(a.update, b.update)
  return {
    whole: maxDistances(a.whole, b.whole),
    ...(update === undefined ? {} : {update}),
    perTensor: a.perTensor.map((t, i) => ({name: t.name, ...maxDistances(t, b.perTensor[i] ?? t)})),
  }
}
