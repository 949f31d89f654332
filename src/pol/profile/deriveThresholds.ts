import type {Checkpoint} from '../../ml/checkpoint/types.js'
import {checkpointTensorList, nonFiniteDistance, type CheckpointDistances, type Distances} from '../distances/parameterDistances.js'
import {distanceMetrics, type DistanceLimits, type Thresholds} from '../distances/thresholds.js'
import {ProfileError} from './errors.js'

/** Sizes of a vector: Σ|w|, ‖w‖₂, max|w| (float64 over the float32 values). */
export type Magnitudes = {l1: number; l2: number; linf: number}

/** The largest magnitudes of the reference end checkpoints, over the whole weight vector and per tensor. */
export type ReferenceMagnitudes = {whole: Magnitudes; perTensor: Record<string, Magnitudes>}

/** Default safety factor S of {@link deriveThresholds} (S² for cosine). */
export const defaultSafetyFactor = 100
/** Default relative floor ρ of {@link deriveThresholds}: 2^-20, 8 float32 ulps at 1 (the float32 epsilon is 2^-23). */
export const defaultFloorRelative = 2 ** -20

function magnitudesOf(values: Float32Array, into: {l1: number; sq: number; linf: number}): void {
  for (let i = 0; i < values.length; i++) {
    const x = Math.abs(values[i] as number)
    into.l1 += x
    into.sq += x * x
    into.linf = Math.max(into.linf, x)
  }
}

const maxMagnitudes = (a: Magnitudes | undefined, b: Magnitudes): Magnitudes =>
  a === undefined ? b : {l1: Math.max(a.l1, b.l1), l2: Math.max(a.l2, b.l2), linf: Math.max(a.linf, b.linf)}

/** Folds one reference checkpoint into the running maxima of {@link ReferenceMagnitudes}. */
export function addMagnitudes(into: ReferenceMagnitudes | undefined, checkpoint: Checkpoint): ReferenceMagnitudes {
  const whole = {l1: 0, sq: 0, linf: 0}
  const perTensor: Record<string, Magnitudes> = {...into?.perTensor}
  for (const [i, t] of checkpointTensorList(checkpoint).entries()) {
    const m = {l1: 0, sq: 0, linf: 0}
    magnitudesOf(t.values, m)
    if (i < checkpoint.weights.length) {
      whole.l1 += m.l1
      whole.sq += m.sq
      whole.linf = Math.max(whole.linf, m.linf)
    }
    perTensor[t.name] = maxMagnitudes(perTensor[t.name], {l1: m.l1, l2: Math.sqrt(m.sq), linf: m.linf})
  }
  return {whole: maxMagnitudes(into?.whole, {l1: whole.l1, l2: Math.sqrt(whole.sq), linf: whole.linf}), perTensor}
}

export type DerivedThresholds = {
  thresholds: Thresholds
  /** The largest distance seen per metric, over the whole weight vector and per tensor; `update` when every sample measured it. */
  observed: {whole: Distances; perTensor: Record<string, Distances>; update?: number}
  rule: string
}

/** Validates the rule's parameters. @throws ProfileError */
export function checkRule(safetyFactor: number, floorRelative: number): void {
  if (!(safetyFactor >= 1 && Number.isFinite(safetyFactor))) throw new ProfileError(`safetyFactor: expected a finite number >= 1, got ${safetyFactor}`)
  if (!(floorRelative >= 0 && floorRelative < 1)) throw new ProfileError(`floorRelative: expected a number in [0, 1), got ${floorRelative}`)
}

const zero = (): Distances => ({l1: 0, l2: 0, linf: 0, cosine: 0})

/**
 * The threshold rule (docs/verification.md, "Profiling"): for each metric, for the whole weight vector
 * and for each tensor,
 *
 *     threshold = max(S · largest observed distance, floor)        (S² for cosine)
 *     floor     = ρ · largest reference ‖w‖₁ / ‖w‖₂ / ‖w‖∞          (l1 / l2 / linf)
 *                 ρ² / 2                                          (cosine)
 *
 * S (default 100) covers the heavy tail of honest drift that a small profile may not see; the floor
 * (ρ = 2^-20 by default) keeps every threshold above zero, so that a runtime the profile saw bit-exact
 * still tolerates a few ulps elsewhere.
 *
 * @throws ProfileError when there are no samples or a distance is NaN or infinite (diverged training)
 */
export function deriveThresholds({
  samples,
  magnitudes,
  safetyFactor = defaultSafetyFactor,
  floorRelative = defaultFloorRelative,
}: {
  samples: readonly {distances: CheckpointDistances; seed?: number; segment?: number; replay?: string}[]
  magnitudes: ReferenceMagnitudes
  safetyFactor?: number
  floorRelative?: number
}): DerivedThresholds {
  checkRule(safetyFactor, floorRelative)
  if (samples.length === 0) throw new ProfileError('samples: expected at least one replay to derive thresholds from, got none')
  const whole = zero()
  const perTensor: Record<string, Distances> = {}
  const fold = (into: Distances, d: Distances, where: string) => {
    for (const m of distanceMetrics) {
      if (!Number.isFinite(d[m]) || d[m] === nonFiniteDistance)
        throw new ProfileError(`${where}: ${m} distance is not finite: the reference run or a replay diverged (NaN or infinite weights), no threshold can be derived`)
      into[m] = Math.max(into[m], d[m])
    }
  }
  let update: number | undefined = samples.every((s) => s.distances.update !== undefined) ? 0 : undefined
  for (const s of samples) {
    const where = `sample (seed ${s.seed ?? '?'}, segment ${s.segment ?? '?'}, ${s.replay ?? 'replay'})`
    fold(whole, s.distances.whole, `${where} whole`)
    if (update !== undefined) {
      const value = s.distances.update as number
      if (!Number.isFinite(value) || value === nonFiniteDistance) throw new ProfileError(`${where} update: distance is not finite: the segment's committed update is zero or diverged, no threshold can be derived`)
      update = Math.max(update, value)
    }
    for (const t of s.distances.perTensor) fold((perTensor[t.name] ??= zero()), t, `${where} ${t.name}`)
  }
  const limits = (observed: Distances, size: Magnitudes | undefined): Required<DistanceLimits> => ({
    l1: Math.max(safetyFactor * observed.l1, floorRelative * (size?.l1 ?? 0)),
    l2: Math.max(safetyFactor * observed.l2, floorRelative * (size?.l2 ?? 0)),
    linf: Math.max(safetyFactor * observed.linf, floorRelative * (size?.linf ?? 0)),
    cosine: Math.max(safetyFactor ** 2 * observed.cosine, floorRelative ** 2 / 2),
  })
  const thresholds: Thresholds = {
    ...limits(whole, magnitudes.whole),
    // scale-free already: its floor is ρ itself
    ...(update === undefined ? {} : {update: Math.max(safetyFactor * update, floorRelative)}),
    perTensor: Object.fromEntries(Object.entries(perTensor).map(([name, d]) => [name, limits(d, magnitudes.perTensor[name])])),
  }
  const rule =
    `threshold = max(${safetyFactor} × largest observed distance, floor) for l1, l2 and linf, max(${safetyFactor ** 2} × largest observed, floor) for cosine, ` +
    `over the whole weight vector and each tensor; floor = ${floorRelative.toExponential(3)} × the largest reference ‖w‖₁, ‖w‖₂, ‖w‖∞ (l1, l2, linf) and ${(floorRelative ** 2 / 2).toExponential(3)} (cosine)` +
    (update === undefined ? '' : `; update (‖replay − committed‖₂ / ‖committed − start‖₂) = max(${safetyFactor} × largest observed, ${floorRelative.toExponential(3)})`)
  return {thresholds, observed: {whole, perTensor, ...(update === undefined ? {} : {update})}, rule}
}
