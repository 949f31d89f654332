import type {Hex} from 'viem'
import {runtimeIdString, sameRuntime, type BackendChoice, type RuntimeId} from '../ml/backend/runtimeId.js'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import {modelWeights} from '../ml/model/initialWeights.js'
import {type JobSpec, optimizerStateType} from '../ml/spec/schema.js'
import {CheckpointMismatchError} from '../ml/train/errors.js'
import {trainSegment} from '../ml/train/trainSegment.js'
import {responsiveYieldMs} from '../ml/train/trainingSession.js'
import type {BlobStore} from '../store/types.js'
import {parameterDistances, type CheckpointDistances} from './distances/parameterDistances.js'
import {checkThresholdsCover, withinThresholds, type Thresholds} from './distances/thresholds.js'
import {ReplayError, RuntimeMismatchError} from './errors.js'
import {raiseToSpread} from './sensitivity/raiseToSpread.js'
import {defaultSpreadRule, segmentSpread, type SegmentSpread, type SpreadRule} from './sensitivity/segmentSpread.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'

/**
 * How a replay is judged (docs/verification.md):
 * - `exact`: on the manifest's runtime only; the replay's checkpoint hash must equal the committed one;
 * - `tolerance`: on the backend the verifier chooses; the replay must be bit-identical, or carry the
 *   same step and optimizer counters with weight and optimizer-state distances within thresholds.
 */
export type VerificationMode = 'exact' | 'tolerance'

export const verificationModes: readonly VerificationMode[] = ['exact', 'tolerance']

export type SegmentReplay = {
  segment: number
  startStep: number
  endStep: number
  /** The committed hash of the segment's end checkpoint. */
  expected: Hex
  /** The hash the replay produced. */
  actual: Hex
  /** The segment passed under `mode` (exact: `actual === expected`; tolerance: see {@link VerificationMode}). */
  match: boolean
  mode: VerificationMode
  /** `actual === expected`: the replay is bit-identical to the committed checkpoint. */
  hashMatch: boolean
  /** The runtime the replay ran on. */
  runtime: RuntimeId
  /** Replayed vs committed end checkpoint (replay = a, committed = b). */
  distances: CheckpointDistances
  /** tolerance mode: what exceeded its threshold or differed (empty when `match`). */
  violations?: string[]
  /**
   * tolerance mode, a replay beyond the profiled thresholds: what the segment's replays on the judge's other runtimes
   * reached (the segment's limits are the thresholds raised to its margin times that), and the distances that were
   * beyond the thresholds.
   */
  spread?: SegmentSpread
  beyondThresholds?: string[]
  seconds: number
}

export type ReplaySegmentParameters = {
  spec: JobSpec
  store: BlobStore
  manifest: ProofManifest
  segment: number
  /**
   * exact: refuse (RuntimeMismatchError) unless the manifest's runtime uses this backend.
   * tolerance: the backend to replay on. Default: the manifest's.
   */
  backend?: BackendChoice | undefined
  /** Default `exact`. */
  mode?: VerificationMode | undefined
  /** Required in tolerance mode (checked with checkThresholdsCover); ignored in exact mode. */
  thresholds?: Thresholds | undefined
}

/** The tensor names of a job's checkpoints: weights in model order, then adam's m/... and v/... (momentum: m/...) */
export function checkpointTensorNames(spec: JobSpec): {weights: string[]; optimizer: string[]} {
  const weights = modelWeights(spec.model).map((w) => w.name)
  const state = optimizerStateType(spec)
  const moments = state === 'adam' ? ['m', 'v'] : state === 'momentum' ? ['m'] : []
  const optimizer = moments.flatMap((kind) => weights.map((n) => `${kind}/${n}`))
  return {weights, optimizer}
}

/** Header differences between a replayed and a committed checkpoint (runtime-independent fields: must be equal). */
export function counterDifferences(replay: Checkpoint, committed: Checkpoint): string[] {
  const out: string[] = []
  if (replay.step !== committed.step) out.push(`step: replay ${replay.step}, committed ${committed.step}`)
  if (replay.optimizer.type === 'adam' && committed.optimizer.type === 'adam') {
    for (const field of ['t', 'beta1Power', 'beta2Power'] as const)
      if (!Object.is(replay.optimizer[field], committed.optimizer[field]))
        out.push(`optimizer ${field}: replay ${replay.optimizer[field]}, committed ${committed.optimizer[field]}`)
  }
  return out
}

/** The spread rule of a job's tolerance-mode judges (`verification.spread`, else the default). */
export function spreadRuleOf(spec: JobSpec): SpreadRule {
  return spec.verification.spread ?? defaultSpreadRule
}

export type ToleranceJudgement = {
  /** What stands against the committed end: counters that differ, distances beyond the segment's limits. */
  violations: string[]
  /** Measured when the distances were beyond the profiled thresholds (and the counters agreed). */
  spread?: SegmentSpread
  /** With `spread`: the distances beyond the profiled thresholds, before they were raised to it. */
  beyondThresholds?: string[]
}

/**
 * The tolerance-mode rule for a committed segment end against the judge's own replay from the committed start: the
 * counters must agree, and the distances must be within the thresholds, or, where they are not, within the
 * thresholds raised to the spread rule's margin times how far the segment's replays on the judge's other runtimes
 * land from its own (docs/verification.md, "Segments that amplify rounding"). A verifier judges a segment this way
 * (replaySegment), and so does a committee member deciding a cross-runtime dispute. `runtime` is the judge's (the
 * current backend), selected again when the spread's replays are done.
 */
export async function judgeTolerance(parameters: {
  spec: JobSpec
  start: Checkpoint
  replayed: Checkpoint
  runtime: RuntimeId
  committed: Checkpoint
  distances: CheckpointDistances
  limits: Thresholds
}): Promise<ToleranceJudgement> {
  const {spec, start, replayed, runtime, committed, distances, limits} = parameters
  const counters = counterDifferences(replayed, committed)
  const beyond = withinThresholds(distances, limits).violations
  const rule = spreadRuleOf(spec)
  if (counters.length > 0 || beyond.length === 0 || !rule.backends.some((b) => b !== runtime.backend)) return {violations: [...counters, ...beyond]}
  const spread = await segmentSpread({spec, start, endStep: committed.step, replayed, runtime, rule})
  return {violations: withinThresholds(distances, raiseToSpread(limits, spread.distances, rule.margin)).violations, spread, beyondThresholds: beyond}
}

async function replayRuntime(manifest: ProofManifest, mode: VerificationMode, backend: BackendChoice | undefined): Promise<RuntimeId> {
  const wanted = manifest.runtime
  if (mode === 'tolerance') {
    const name = backend ?? wanted.backend
    try {
      return await selectBackend(name)
    } catch (error) {
      throw new RuntimeMismatchError(`runtime: cannot run backend ${name} here: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`, {cause: error})
    }
  }
  // exact mode replays on the proof's runtime or not at all: `auto` means whichever that is
  if (backend !== undefined && backend !== 'auto' && backend !== wanted.backend)
    throw new RuntimeMismatchError(`runtime: the proof was made on ${runtimeIdString(wanted)}, refusing to replay it on backend ${backend}`)
  let runtime: RuntimeId
  try {
    runtime = await selectBackend(wanted.backend, {wasmVariant: wanted.wasmVariant})
  } catch (error) {
    throw new RuntimeMismatchError(`runtime: cannot run ${runtimeIdString(wanted)} here: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`, {cause: error})
  }
  if (!sameRuntime(runtime, wanted))
    throw new RuntimeMismatchError(`runtime: the proof was made on ${runtimeIdString(wanted)}, this verifier runs ${runtimeIdString(runtime)}`)
  return runtime
}

/**
 * Replays segment `segment` of a proof: loads the committed checkpoint at its start from the store,
 * trains to its end step, and compares the result with the committed end checkpoint: by hash (exact
 * mode, only on the manifest's runtime) or by distances within thresholds (tolerance mode, on the
 * backend asked for). Distances are computed in both modes.
 *
 * @throws ThresholdsError in tolerance mode without usable thresholds (bad input)
 * @throws RuntimeMismatchError when the runtime cannot be used (exact: it is not the manifest's)
 * @throws BlobNotFoundError / BlobIntegrityError / CheckpointFormatError / CheckpointMismatchError /
 *   DistanceError when the start or end checkpoint is missing, corrupt or not this job's
 */
export async function replaySegment({spec, store, manifest, segment, backend, mode = 'exact', thresholds}: ReplaySegmentParameters): Promise<SegmentReplay> {
  const started = performance.now()
  const start = manifest.checkpoints[segment]
  const end = manifest.checkpoints[segment + 1]
  if (!Number.isInteger(segment) || !start || !end)
    throw new ReplayError(`segment: expected an integer in [0, ${manifest.checkpoints.length - 2}], got ${segment}`)
  if (mode !== 'exact' && mode !== 'tolerance') throw new ReplayError(`mode: expected exact or tolerance, got ${JSON.stringify(mode)}`)
  const limits = mode === 'tolerance' ? checkThresholdsCover(thresholds, checkpointTensorNames(spec)) : undefined
  const runtime = await replayRuntime(manifest, mode, backend)
  const checkpoint = decodeCheckpoint(await store.get(start.hash))
  if (checkpoint.step !== start.step)
    throw new CheckpointMismatchError(`checkpoint ${start.hash}: expected step ${start.step}, got ${checkpoint.step}`)
  const replayed = await trainSegment(spec, checkpoint, end.step, {yieldEveryMs: responsiveYieldMs})
  const actual = checkpointHash(encodeCheckpoint(replayed))
  const committed = decodeCheckpoint(await store.get(end.hash))
  const distances = parameterDistances(replayed, committed, checkpoint)
  const hashMatch = actual === end.hash
  const base = {segment, startStep: start.step, endStep: end.step, expected: end.hash, actual, hashMatch, runtime, distances}
  if (limits === undefined) return {...base, match: hashMatch, mode, seconds: (performance.now() - started) / 1000}
  const judged = hashMatch ? {violations: []} : await judgeTolerance({spec, start: checkpoint, replayed, runtime, committed, distances, limits})
  return {...base, match: judged.violations.length === 0, mode, ...judged, seconds: (performance.now() - started) / 1000}
}
