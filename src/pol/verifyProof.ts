import type {Hex} from 'viem'
import {BaseError} from '../errors/base.js'
import {runtimeIdString, type BackendChoice, type RuntimeId} from '../ml/backend/runtimeId.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../ml/checkpoint/initialCheckpoint.js'
import {datasetHash} from '../ml/data/datasetHash.js'
import {samplesFor} from '../ml/data/samplesFor.js'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {evaluateCheckpoint} from '../ml/evaluate/evaluateCheckpoint.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {specHash} from '../ml/spec/specHash.js'
import {checkpointSchedule} from '../ml/train/checkpointSchedule.js'
import {stopRuleProblem, type CheckpointAccuracy} from '../ml/train/stopRule.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import type {BlobStore} from '../store/types.js'
import {checkThresholdsCover, type Thresholds} from './distances/thresholds.js'
import {ReplayError, RuntimeMismatchError} from './errors.js'
import {proofManifestSchema, type ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleRoot} from '../ml/checkpoint/merkle.js'
import {checkpointTensorNames, replaySegment, verificationModes, type SegmentReplay, type VerificationMode} from './replaySegment.js'
import {defaultTopQ, samplingStrategies, SegmentSelectionError, selectSegments, type SamplingStrategy} from './selectSegments.js'
import {committedUpdateNorms} from './updateNorms.js'
import {describeSpread} from './sensitivity/describeSpread.js'

/** How the segments to replay are drawn (docs/verification.md, "Sampling"). */
export type Sampling = {
  strategy: SamplingStrategy
  /** top-q: how many picks go to the largest committed updates (default ceil((count - 1) / 2)). */
  topQ?: number | undefined
}

export type CheckStatus = 'pass' | 'fail' | 'skipped'

/** Checks in the order they run (cheapest first); the first failure stops the rest (`skipped`). */
export type VerificationChecks = {
  /**
   * The manifest blob exists, parses, and lists exactly the task's checkpoint steps (checkpointSchedule), or,
   * with `training.stopAt`, a prefix of them that ends after the first.
   */
  manifest: CheckStatus
  /** manifest.specHash is the job's spec hash (checked before the manifest's schedule when the caller names the job: `specHash`). */
  specHash: CheckStatus
  /** manifest.datasetHash is the hash of the job's training data. */
  datasetHash: CheckStatus
  /** The Merkle root recomputes from the checkpoint hashes (and equals the on-chain proofRoot if given). */
  merkleRoot: CheckStatus
  /** Every checkpoint blob the manifest names is in the store and its bytes hash to its name. */
  availability: CheckStatus
  /**
   * The first checkpoint is the task's start: the seed-derived initial state for a range that starts at step 0;
   * for a later split task, a checkpoint at the range's first step, equal to `startCheckpoint` (the parent's
   * final checkpoint) when it is given, and to `split.start` (the mean of the round before) for a parallel split's.
   */
  initialWeights: CheckStatus
  /** exact: this verifier runs the manifest's runtime; tolerance: the requested backend loads. */
  runtime: CheckStatus
  /** Every sampled segment replays to its committed checkpoint (exact: bit for bit; tolerance: within thresholds). */
  replay: CheckStatus
  /**
   * Where the proof ends follows the early-stop rule (docs/market.md, section 2), from the test accuracy of every
   * checkpoint after the first. Last, because a rejection for it claims the last segment's replay (which passed).
   * `pass` for a job without `training.stopAt` (the manifest check already required its whole range).
   */
  stopRule: CheckStatus
}

export type VerificationReport = {
  accepted: boolean
  /**
   * True when the verifier could not decide (the manifest's runtime is not available here): not a
   * verdict on the solver; a verifier should not post a rejection.
   */
  inconclusive: boolean
  /** Why the proof was not accepted (one line). */
  reason?: string
  manifestHash: Hex
  /** The runtime the replays ran on (when they could run). */
  runtime?: RuntimeId
  /** How replays were judged. */
  mode: VerificationMode
  /** tolerance mode: the limits the replays were judged by. */
  thresholds?: Thresholds
  /** How the segments were drawn from the randomness (not used when the caller named the segments). */
  sampling: Sampling
  /** top-q sampling: ‖w_end - w_start‖₂ of every segment, from the committed checkpoints. */
  updateNorms?: number[]
  checks: VerificationChecks
  /** Segment indices chosen from the randomness (or given explicitly). */
  selectedSegments: number[]
  /** Replays done, in order (stops at the first mismatch). */
  segments: SegmentReplay[]
  /** With `training.stopAt`: the test accuracy of every checkpoint after the first, as the stop rule measured it. */
  accuracies?: CheckpointAccuracy[]
  seconds: number
}

export type VerifyProofParameters = {
  spec: JobSpec
  store: BlobStore
  manifestHash: Hex
  /** On-chain randomness (a block hash after the commit) that picks the segments. */
  randomness: Hex
  /**
   * How many segments to replay (default `verification.segments`), or the exact segment indices (for
   * dispute tooling and tests; then `randomness` is not used for sampling).
   */
  segments?: number | number[] | undefined
  /**
   * exact mode: refuse (inconclusive) unless the manifest's runtime uses this backend.
   * tolerance mode: replay on this backend (inconclusive when it does not load). Default: the manifest's.
   */
  backend?: BackendChoice | undefined
  /** Default `exact` (docs/verification.md, "Modes"). */
  mode?: VerificationMode | undefined
  /** Required in tolerance mode: see {@link Thresholds} and checkThresholdsCover. */
  thresholds?: Thresholds | undefined
  /** Default `{strategy: 'uniform'}`. */
  sampling?: Sampling | undefined
  /**
   * The spec hash of the job the proof must be for (the chain's task, or the job a user named), checked against
   * the manifest's when given. Without it the proof is only checked against `spec`, which may come from the proof.
   */
  specHash?: Hex | undefined
  /** The on-chain proofRoot, checked against the manifest's Merkle root when given. */
  proofRoot?: Hex | undefined
  /**
   * A split task after the first: the hash of its parent's final checkpoint (the last checkpoint of the parent's
   * accepted proof), which must be this proof's first. Without it only the first checkpoint's step is checked.
   */
  startCheckpoint?: Hex | undefined
  onSegment?: ((replay: SegmentReplay) => void) | undefined
}

/**
 * Verifies a proof of learning, cheapest checks first: the manifest is well formed and matches the
 * job (spec hash, data set hash, checkpoint schedule), its Merkle root recomputes, the checkpoints are
 * available, its first checkpoint is the seed-derived initial state, then the segments sampled from
 * `randomness` (always including the final one) are replayed and compared with the committed ones:
 * bit for bit on the manifest's runtime (exact mode) or within distance thresholds on the chosen
 * backend (tolerance mode). Never throws for a bad proof: the report says why it was rejected.
 *
 * @throws ThresholdsError (bad input) in tolerance mode without thresholds that cover the job's tensors
 * @throws ReplayError for an unknown mode or sampling strategy; SegmentSelectionError for a bad topQ
 */
export async function verifyProof(parameters: VerifyProofParameters): Promise<VerificationReport> {
  const verification = startVerification(parameters)
  const read = await checkManifest(verification)
  if (read.failed) return read.failed
  const {manifest} = read
  return (
    checkJobHashes(verification, manifest) ??
    checkMerkleRoot(verification, manifest) ??
    (await checkAvailability(verification, manifest)) ??
    (await checkTaskStart(verification, manifest)) ??
    (await checkReplays(verification, manifest)) ??
    (await checkEarlyStop(verification, manifest)) ??
    finish(verification, true)
  )
}

/**
 * One verification under way: its settings, checked before anything is read, and what the checks found so far
 * (the report is built from it when a check fails or the last one passes).
 */
type Verification = {
  readonly parameters: VerifyProofParameters
  readonly started: number
  readonly mode: VerificationMode
  readonly thresholds: Thresholds | undefined
  readonly strategy: SamplingStrategy
  /** How many segments to replay, or which. */
  readonly requested: number | number[]
  readonly sampling: Sampling
  readonly checks: VerificationChecks
  readonly segments: SegmentReplay[]
  selectedSegments: number[]
  runtime: RuntimeId | undefined
  updateNorms: number[] | undefined
  accuracies: CheckpointAccuracy[] | undefined
}

/** Checks the mode, thresholds and sampling (bad input throws); every check starts `skipped`. */
function startVerification(parameters: VerifyProofParameters): Verification {
  const started = performance.now()
  const {spec} = parameters
  const mode = parameters.mode ?? 'exact'
  if (!verificationModes.includes(mode)) throw new ReplayError(`mode: expected one of ${verificationModes.join(', ')}, got ${JSON.stringify(mode)}`)
  const thresholds = mode === 'tolerance' ? checkThresholdsCover(parameters.thresholds, checkpointTensorNames(spec)) : undefined
  const strategy = parameters.sampling?.strategy ?? 'uniform'
  if (!samplingStrategies.includes(strategy))
    throw new ReplayError(`sampling.strategy: expected one of ${samplingStrategies.join(', ')}, got ${JSON.stringify(strategy)}`)
  const requested = parameters.segments ?? spec.verification.segments
  const sampling: Sampling =
    strategy === 'top-q' ? {strategy, topQ: parameters.sampling?.topQ ?? defaultTopQ(Array.isArray(requested) ? requested.length : requested)} : {strategy}
  const count = Array.isArray(requested) ? requested.length : requested
  if (sampling.topQ !== undefined && (!Number.isInteger(sampling.topQ) || sampling.topQ < 0 || sampling.topQ > count - 1))
    throw new SegmentSelectionError(`sampling.topQ: expected an integer in [0, count - 1 = ${count - 1}], got ${sampling.topQ}`)
  const checks: VerificationChecks = {
    manifest: 'skipped',
    specHash: 'skipped',
    datasetHash: 'skipped',
    merkleRoot: 'skipped',
    availability: 'skipped',
    initialWeights: 'skipped',
    runtime: 'skipped',
    replay: 'skipped',
    stopRule: 'skipped',
  }
  return {parameters, started, mode, thresholds, strategy, requested, sampling, checks, segments: [], selectedSegments: [], runtime: undefined, updateNorms: undefined, accuracies: undefined}
}

function finish(verification: Verification, accepted: boolean, reason?: string, inconclusive = false): VerificationReport {
  const {runtime, thresholds, updateNorms, accuracies} = verification
  return {
    accepted,
    inconclusive,
    ...(reason === undefined ? {} : {reason}),
    manifestHash: verification.parameters.manifestHash,
    ...(runtime === undefined ? {} : {runtime}),
    mode: verification.mode,
    ...(thresholds === undefined ? {} : {thresholds}),
    sampling: verification.sampling,
    ...(updateNorms === undefined ? {} : {updateNorms}),
    checks: verification.checks,
    selectedSegments: verification.selectedSegments,
    segments: verification.segments,
    ...(accuracies === undefined ? {} : {accuracies}),
    seconds: (performance.now() - verification.started) / 1000,
  }
}

function fail(verification: Verification, check: keyof VerificationChecks, reason: string): VerificationReport {
  verification.checks[check] = 'fail'
  return finish(verification, false, reason)
}

/**
 * 1. The manifest blob parses and lists the task's checkpoint steps. A proof for another job is rejected as that,
 * before its schedule is compared with a spec it may have brought.
 */
async function checkManifest(verification: Verification): Promise<{manifest: ProofManifest; failed?: undefined} | {failed: VerificationReport}> {
  const {spec, store, manifestHash} = verification.parameters
  const failed = (check: keyof VerificationChecks, reason: string) => ({failed: fail(verification, check, reason)})
  let manifest: ProofManifest
  try {
    const parsed = proofManifestSchema.safeParse(await store.getJson<unknown>(manifestHash))
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      return failed('manifest', `manifest ${manifestHash}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'malformed'}`)
    }
    manifest = parsed.data as ProofManifest
  } catch (error) {
    return failed('manifest', `manifest ${manifestHash}: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`)
  }
  const jobSpecHash = verification.parameters.specHash
  if (jobSpecHash !== undefined && manifest.specHash !== jobSpecHash)
    return failed('specHash', `manifest specHash: expected ${jobSpecHash} (the job's), got ${manifest.specHash}: the proof is for another job`)
  const schedule = checkpointSchedule(spec)
  const steps = manifest.checkpoints.map((c) => c.step)
  if (manifest.checkpointInterval !== spec.proof.checkpointInterval)
    return failed('manifest', `manifest checkpointInterval: expected ${spec.proof.checkpointInterval}, got ${manifest.checkpointInterval}`)
  // an early stop (training.stopAt) ends the schedule at any checkpoint after the first; the stop rule checks which
  const prefix = spec.training.stopAt !== undefined && steps.length >= 2 && steps.length <= schedule.length ? schedule.slice(0, steps.length) : schedule
  if (steps.join(',') !== prefix.join(','))
    return failed(
      'manifest',
      `manifest checkpoints: expected steps ${schedule.join(', ')}${spec.training.stopAt === undefined ? '' : ' (or a prefix of them, with training.stopAt)'}, got ${steps.join(', ')}`,
    )
  verification.checks.manifest = 'pass'
  return {manifest}
}

/** 2. spec hash, 3. data set. */
function checkJobHashes(verification: Verification, manifest: ProofManifest): VerificationReport | undefined {
  const {spec} = verification.parameters
  const expectedSpec = specHash(spec)
  if (manifest.specHash !== expectedSpec) return fail(verification, 'specHash', `manifest specHash: expected ${expectedSpec}, got ${manifest.specHash}`)
  verification.checks.specHash = 'pass'
  const expectedData = datasetHash(spec)
  if (manifest.datasetHash !== expectedData) return fail(verification, 'datasetHash', `manifest datasetHash: expected ${expectedData}, got ${manifest.datasetHash}`)
  verification.checks.datasetHash = 'pass'
  return undefined
}

/** 4. The Merkle root recomputes from the checkpoints, and is the one the chain holds. */
function checkMerkleRoot(verification: Verification, manifest: ProofManifest): VerificationReport | undefined {
  const {proofRoot} = verification.parameters
  const root = merkleRoot(manifest.checkpoints.map((c) => c.hash))
  if (root !== manifest.merkleRoot) return fail(verification, 'merkleRoot', `manifest merkleRoot: expected ${root} (recomputed), got ${manifest.merkleRoot}`)
  if (proofRoot !== undefined && proofRoot !== root)
    return fail(verification, 'merkleRoot', `proofRoot: the chain commits ${proofRoot}, the manifest's checkpoints give ${root}`)
  verification.checks.merkleRoot = 'pass'
  return undefined
}

/**
 * 5. Availability: read every checkpoint (the store re-hashes each read), so data that was withheld or changed
 * after the commit is caught even where no segment is sampled. A read, not a replay: cheap.
 */
async function checkAvailability(verification: Verification, manifest: ProofManifest): Promise<VerificationReport | undefined> {
  for (const c of manifest.checkpoints) {
    try {
      await verification.parameters.store.get(c.hash)
    } catch (error) {
      return fail(verification, 'availability', `checkpoint at step ${c.step} (${c.hash}): ${error instanceof BaseError ? error.shortMessage : String(error)}`)
    }
  }
  verification.checks.availability = 'pass'
  return undefined
}

/** 6. The task's start: the initial weights, a split task's parent's final checkpoint, or a parallel split round's averaged one. */
async function checkTaskStart(verification: Verification, manifest: ProofManifest): Promise<VerificationReport | undefined> {
  const {spec, store, startCheckpoint} = verification.parameters
  const range = taskStepRange(spec)
  const first = manifest.checkpoints[0]
  if (range.start === 0) {
    const initial = checkpointHash(encodeCheckpoint(initialCheckpoint(spec)))
    if (first?.hash !== initial)
      return fail(verification, 'initialWeights', `checkpoint at step 0: expected the seed-derived initial state ${initial}, got ${first?.hash}`)
  } else {
    if (startCheckpoint !== undefined && first?.hash !== startCheckpoint)
      return fail(verification, 'initialWeights', `checkpoint at step ${range.start}: expected the parent task's final checkpoint ${startCheckpoint}, got ${first?.hash}`)
    const averaged = spec.split?.start
    if (averaged !== undefined && first?.hash !== averaged)
      return fail(verification, 'initialWeights', `checkpoint at step ${range.start}: expected the averaged checkpoint the spec names (split.start ${averaged}), got ${first?.hash}`)
    try {
      const state = decodeCheckpoint(await store.get(first?.hash as Hex))
      if (state.step !== range.start) return fail(verification, 'initialWeights', `checkpoint ${first?.hash}: expected step ${range.start} (the task's start), got ${state.step}`)
    } catch (error) {
      return fail(verification, 'initialWeights', `checkpoint at step ${range.start} (${first?.hash}): ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`)
    }
  }
  verification.checks.initialWeights = 'pass'
  return undefined
}

/** 7. Replays: the segments named, or drawn from the randomness, each replayed and compared with the proof. */
async function checkReplays(verification: Verification, manifest: ProofManifest): Promise<VerificationReport | undefined> {
  const selectionFailure = await selectReplays(verification, manifest)
  if (selectionFailure) return selectionFailure
  for (const segment of verification.selectedSegments) {
    const failure = await checkReplay(verification, manifest, segment)
    if (failure) return failure
  }
  verification.checks.replay = 'pass'
  return undefined
}

async function selectReplays(verification: Verification, manifest: ProofManifest): Promise<VerificationReport | undefined> {
  const {requested, strategy, sampling} = verification
  const segmentCount = manifest.checkpoints.length - 1
  if (Array.isArray(requested)) {
    const bad = requested.find((s) => !Number.isInteger(s) || s < 0 || s >= segmentCount)
    if (bad !== undefined) return fail(verification, 'replay', `segments: expected indices in [0, ${segmentCount - 1}], got ${bad}`)
    verification.selectedSegments = [...new Set(requested)].sort((a, b) => a - b)
    return undefined
  }
  if (strategy === 'top-q') {
    try {
      verification.updateNorms = await committedUpdateNorms(verification.parameters.store, manifest)
    } catch (error) {
      return fail(verification, 'replay', `update norms: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`)
    }
  }
  const {randomness} = verification.parameters
  verification.selectedSegments = selectSegments({randomness, segmentCount, count: requested, strategy, updateNorms: verification.updateNorms, topQ: sampling.topQ})
  return undefined
}

/** One segment's replay: bit for bit in exact mode, within the thresholds in tolerance mode. */
async function checkReplay(verification: Verification, manifest: ProofManifest, segment: number): Promise<VerificationReport | undefined> {
  const {spec, store, backend, onSegment} = verification.parameters
  const {mode, thresholds, checks} = verification
  let replay: SegmentReplay
  try {
    replay = await replaySegment({spec, store, manifest, segment, backend, mode, thresholds})
    verification.runtime = replay.runtime
    checks.runtime = 'pass'
  } catch (error) {
    const message = (error as {shortMessage?: string}).shortMessage ?? String(error)
    if (error instanceof RuntimeMismatchError) {
      checks.runtime = 'fail'
      return finish(verification, false, message, true)
    }
    return fail(verification, 'replay', `segment ${segment}: ${message}`)
  }
  verification.segments.push(replay)
  onSegment?.(replay)
  if (!replay.match && mode === 'exact')
    return fail(
      verification,
      'replay',
      `segment ${segment} (steps ${replay.startStep}-${replay.endStep}): replay gives ${replay.actual}, the proof commits ${replay.expected} on ${runtimeIdString(manifest.runtime)}`,
    )
  if (!replay.match) {
    const violations = replay.violations ?? []
    const more = violations.length > 3 ? ` (+${violations.length - 3} more)` : ''
    return fail(
      verification,
      'replay',
      `segment ${segment} (steps ${replay.startStep}-${replay.endStep}): the replay on ${runtimeIdString(replay.runtime)} is beyond the thresholds${replay.spread ? ` and ${describeSpread(replay.spread)}` : ''}: ${violations.slice(0, 3).join('; ')}${more}`,
    )
  }
  return undefined
}

/** 8. The early-stop rule, for a job with `training.stopAt`. */
async function checkEarlyStop(verification: Verification, manifest: ProofManifest): Promise<VerificationReport | undefined> {
  const {spec, store} = verification.parameters
  if (spec.training.stopAt !== undefined) {
    const stop = await checkStopRule({spec, store, manifest, backend: verification.runtime?.backend ?? manifest.runtime.backend, mode: verification.mode})
    verification.accuracies = stop.accuracies
    if (stop.problem !== undefined) return fail(verification, 'stopRule', stop.problem)
  }
  verification.checks.stopRule = 'pass'
  return undefined
}

/**
 * The early-stop rule, from the checkpoints' test accuracy on the runtime the replays ran on: the proof's own in
 * exact mode (bit for bit what the solver measured); in tolerance mode another runtime, where a sample near a tie
 * may flip, so two test samples of margin go to the solver. A checkpoint that cannot be evaluated is a problem:
 * one no sampled segment replayed may still be no checkpoint of this model.
 */
async function checkStopRule(parameters: {
  spec: JobSpec
  store: BlobStore
  manifest: ProofManifest
  backend: BackendChoice
  mode: VerificationMode
}): Promise<{accuracies: CheckpointAccuracy[]; problem?: string | undefined}> {
  const {spec, store, manifest, backend, mode} = parameters
  const range = taskStepRange(spec)
  const last = manifest.checkpoints[manifest.checkpoints.length - 1] as {step: number}
  const accuracies: CheckpointAccuracy[] = []
  for (const c of manifest.checkpoints.slice(1)) {
    try {
      const {testAccuracy, testLoss} = await evaluateCheckpoint({spec, checkpoint: await store.get(c.hash), backend})
      accuracies.push({step: c.step, testAccuracy, testLoss})
    } catch (error) {
      return {accuracies, problem: `checkpoint at step ${c.step} (${c.hash}): cannot be evaluated: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`}
    }
  }
  // tolerance: two test samples of accuracy, or 0.1 % of the target loss (another runtime's rounding)
  const lossTarget = spec.training.stopAt?.testLoss
  const margin = mode === 'tolerance' ? (lossTarget === undefined ? 2 / samplesFor(spec, 'test').count : lossTarget * 1e-3) : 0
  return {accuracies, problem: stopRuleProblem({spec, accuracies, totalSteps: last.step - range.start, maxSteps: range.end - range.start, margin})}
}
