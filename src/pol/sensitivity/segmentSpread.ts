import type {Hex} from 'viem'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {responsiveYieldMs, TrainingSession} from '../../ml/train/trainingSession.js'
import {parameterDistances, type CheckpointDistances, type Distances} from '../distances/parameterDistances.js'

/**
 * How a tolerance-mode judge measures a segment's sensitivity to rounding (docs/verification.md, "Segments that
 * amplify rounding"): `replays` perturbed replays, each step's update moved elementwise by up to `noise` of itself.
 */
export type Sensitivity = {replays: number; noise: number}

/**
 * 8 replays at 1e-3 of each update: one step's update differs between runtimes by up to 2e-3 of itself in a few
 * elements (cpu against wasm, the CNN; docs/verification.md), so 1e-3 on every element covers what a runtime
 * changes in one step, and 8 replays cross a decision the runtimes split (a ReLU bias at zero) in the traced cases.
 */
export const defaultSensitivity: Sensitivity = {replays: 8, noise: 1e-3}

/** What the perturbed replays of a segment reached: the largest of each distance to the plain replay. */
export type SegmentSpread = Sensitivity & {distances: CheckpointDistances}

export type SegmentSpreadParameters = {
  spec: JobSpec
  /** The committed start checkpoint and its hash (the noise's seed, so every judge on this runtime draws the same). */
  start: Checkpoint
  startHash: Hex
  endStep: number
  /** The judge's own unperturbed replay of the segment on this backend. */
  replayed: Checkpoint
  sensitivity: Sensitivity
}

/**
 * Replays the segment `sensitivity.replays` times on the current backend with perturbed updates (TrainingSession's
 * updateNoise, seeded by the start's hash and the replay's index) and returns, per distance, the largest distance of
 * a perturbed replay to the plain one: how far honest training spreads from this start when its rounding changes.
 */
export async function segmentSpread({spec, start, startHash, endStep, replayed, sensitivity}: SegmentSpreadParameters): Promise<SegmentSpread> {
  const base = Number.parseInt(startHash.slice(2, 10), 16)
  let spread: CheckpointDistances | undefined
  for (let k = 0; k < sensitivity.replays; k++) {
    const session = new TrainingSession(spec, {updateNoise: {relative: sensitivity.noise, seed: (base + k) >>> 0}})
    try {
      session.load(start)
      await session.run(endStep, {yieldEveryMs: responsiveYieldMs})
      const distances = parameterDistances(await session.snapshot(), replayed, start)
      spread = spread === undefined ? distances : largerDistances(spread, distances)
    } finally {
      session.dispose()
    }
  }
  const none: Distances = {l1: 0, l2: 0, linf: 0, cosine: 0}
  return {...sensitivity, distances: spread ?? {whole: none, update: 0, perTensor: []}}
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
