import {runtimeIdString, type BackendName, type RuntimeId} from '../../ml/backend/runtimeId.js'
import {selectBackend} from '../../ml/backend/selectBackend.js'
import {checkpointHash} from '../../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../../ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../../ml/checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import type {JobSpec} from '../../ml/spec/schema.js'
import {checkpointSchedule} from '../../ml/train/checkpointSchedule.js'
import {trainSegment} from '../../ml/train/trainSegment.js'
import {TrainingSession} from '../../ml/train/trainingSession.js'
import {parameterDistances, type CheckpointDistances, type Distances} from '../distances/parameterDistances.js'
import type {Thresholds} from '../distances/thresholds.js'
import {addMagnitudes, checkRule, defaultFloorRelative, defaultSafetyFactor, deriveThresholds, type ReferenceMagnitudes} from './deriveThresholds.js'
import {ProfileError} from './errors.js'

/** One honest replay: a segment of a reference run, replayed on one runtime, against the reference's end. */
export type ProfileSample = {
  /** The training seed of the reference run (the job's seed, then seed + 1, ...). */
  seed: number
  segment: number
  startStep: number
  endStep: number
  /** Runtime id of the reference run that produced the segment's start and end checkpoints. */
  reference: string
  /** Runtime id the segment was replayed on. */
  replay: string
  /** The replay is bit-identical to the reference's end checkpoint. */
  exact: boolean
  /** Replay (a) vs reference end (b). */
  distances: CheckpointDistances
  seconds: number
}

export type ProfileProgress =
  | {kind: 'reference'; seed: number; runtime: string; step: number; steps: number}
  | {kind: 'sample'; sample: ProfileSample; done: number; total: number}

export type ProfileJobParameters = {
  spec: JobSpec
  /** Backends to compare; the first that loads runs the reference. Default ['wasm', 'cpu']. Ones that do not load are listed in `unavailable`. */
  runtimes?: readonly BackendName[] | undefined
  /** Segments replayed per seed, spread evenly over the job (first and last included). Default: all. */
  segments?: number | undefined
  /** Reference runs with training seeds seed, seed + 1, ... (other initial weights, batch order and dropout masks). Default 1. */
  seeds?: number | undefined
  /** S of the threshold rule (S² for cosine). Default 100. */
  safetyFactor?: number | undefined
  /** ρ of the threshold floor. Default 2^-20. */
  floorRelative?: number | undefined
  onProgress?: ((progress: ProfileProgress) => void) | undefined
}

export type ProfileResult = {
  /** The runtimes the thresholds were measured across (ids joined by ' + ', the reference first). */
  runtimeClass: string
  /** The runtimes that loaded, the reference first. */
  runtimes: RuntimeId[]
  /** Requested backends that did not load (e.g. gpu without @tensorflow/tfjs-node-gpu). */
  unavailable: {backend: BackendName; reason: string}[]
  samples: ProfileSample[]
  /** The largest distance seen per metric, over the whole weight vector and per tensor, and the largest update-relative distance. */
  observed: {whole: Distances; perTensor: Record<string, Distances>; update?: number}
  /** The largest reference end-checkpoint magnitudes (Σ|w|, ‖w‖₂, max|w|): the base of the floors. */
  magnitudes: ReferenceMagnitudes
  thresholds: Thresholds
  /** The threshold rule with its numbers (docs/verification.md, "Profiling"). */
  rule: string
  safetyFactor: number
  floorRelative: number
  seconds: number
}

/** `count` segment indices of `n`, spread evenly, first and last included. */
export function spreadSegments(n: number, count: number): number[] {
  if (count >= n) return Array.from({length: n}, (_, i) => i)
  if (count === 1) return [0]
  return [...new Set(Array.from({length: count}, (_, i) => Math.round((i * (n - 1)) / (count - 1))))]
}

const message = (error: unknown) => (error as {shortMessage?: string}).shortMessage ?? (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error))

/**
 * Measures how far honest replays of a job drift across runtimes, and derives tolerance-mode thresholds
 * from it (docs/verification.md, "Profiling"). For each seed: trains the job on the reference runtime
 * (the first of `runtimes` that loads), keeping the checkpoints around the chosen segments; then replays
 * each chosen segment from its reference start on every runtime (the reference's own included: it shows
 * whether that runtime is deterministic) and measures the distances to the reference's end checkpoint.
 * The thresholds follow {@link deriveThresholds}.
 *
 * @throws ProfileError for bad counts, when no runtime loads, or when training diverges (NaN distances)
 */
export async function profileJob(parameters: ProfileJobParameters): Promise<ProfileResult> {
  const started = performance.now()
  const {spec, onProgress} = parameters
  const safetyFactor = parameters.safetyFactor ?? defaultSafetyFactor
  const floorRelative = parameters.floorRelative ?? defaultFloorRelative
  checkRule(safetyFactor, floorRelative)
  const requested = [...new Set(parameters.runtimes ?? (['wasm', 'cpu'] as const))]
  if (requested.length === 0) throw new ProfileError('runtimes: expected at least one backend, got none')
  const schedule = checkpointSchedule(spec)
  const segmentCount = schedule.length - 1
  const segments = parameters.segments ?? segmentCount
  if (!Number.isInteger(segments) || segments < 1) throw new ProfileError(`segments: expected a positive integer, got ${segments}`)
  const seeds = parameters.seeds ?? 1
  if (!Number.isInteger(seeds) || seeds < 1 || seeds > 1000) throw new ProfileError(`seeds: expected an integer in [1, 1000], got ${seeds}`)

  const runtimes: {backend: BackendName; id: RuntimeId}[] = []
  const unavailable: {backend: BackendName; reason: string}[] = []
  for (const backend of requested) {
    try {
      runtimes.push({backend, id: await selectBackend(backend)})
    } catch (error) {
      unavailable.push({backend, reason: message(error)})
    }
  }
  const reference = runtimes[0]
  if (reference === undefined)
    throw new ProfileError(`runtimes: none of ${requested.join(', ')} loads here`, {details: unavailable.map((u) => `${u.backend}: ${u.reason}`).join('; ')})
  const referenceName = runtimeIdString(reference.id)

  const chosen = spreadSegments(segmentCount, segments)
  const keep = new Set(chosen.flatMap((s) => [schedule[s] as number, schedule[s + 1] as number]))
  const lastStep = Math.max(...keep)
  const total = seeds * chosen.length * runtimes.length
  const samples: ProfileSample[] = []
  let magnitudes: ReferenceMagnitudes | undefined

  for (let k = 0; k < seeds; k++) {
    const seed = (spec.training.seed + k) % 2 ** 32
    const seeded: JobSpec = {...spec, training: {...spec.training, seed}}
    // reference run: keep the checkpoints that start or end a chosen segment
    await selectBackend(reference.backend)
    const kept = new Map<number, Checkpoint>()
    const session = new TrainingSession(seeded)
    try {
      session.load(initialCheckpoint(seeded))
      if (keep.has(0)) kept.set(0, (await session.snapshot()))
      await session.run(lastStep, {
        stopAt: keep,
        onBoundary: async (step) => {
          kept.set(step, await session.snapshot())
          onProgress?.({kind: 'reference', seed, runtime: referenceName, step, steps: lastStep})
        },
      })
    } finally {
      session.dispose()
    }
    for (const s of chosen) magnitudes = addMagnitudes(magnitudes, kept.get(schedule[s + 1] as number) as Checkpoint)
    // replays: each runtime in turn (one backend switch per runtime and seed)
    for (const runtime of runtimes) {
      await selectBackend(runtime.backend)
      for (const segment of chosen) {
        const t0 = performance.now()
        const startStep = schedule[segment] as number
        const endStep = schedule[segment + 1] as number
        const end = kept.get(endStep) as Checkpoint
        const replayed = await trainSegment(seeded, kept.get(startStep) as Checkpoint, endStep)
        const sample: ProfileSample = {
          seed,
          segment,
          startStep,
          endStep,
          reference: referenceName,
          replay: runtimeIdString(runtime.id),
          exact: checkpointHash(encodeCheckpoint(replayed)) === checkpointHash(encodeCheckpoint(end)),
          distances: parameterDistances(replayed, end, kept.get(startStep) as Checkpoint),
          seconds: (performance.now() - t0) / 1000,
        }
        samples.push(sample)
        onProgress?.({kind: 'sample', sample, done: samples.length, total})
      }
    }
  }
  const derived = deriveThresholds({samples, magnitudes: magnitudes as ReferenceMagnitudes, safetyFactor, floorRelative})
  return {
    runtimeClass: runtimes.map((r) => runtimeIdString(r.id)).join(' + '),
    runtimes: runtimes.map((r) => r.id),
    unavailable,
    samples,
    observed: derived.observed,
    magnitudes: magnitudes as ReferenceMagnitudes,
    thresholds: derived.thresholds,
    rule: derived.rule,
    safetyFactor,
    floorRelative,
    seconds: (performance.now() - started) / 1000,
  }
}
