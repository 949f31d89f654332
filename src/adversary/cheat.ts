import type {Hex} from 'viem'
import {backendChoices, type BackendChoice, type WasmVariant} from '../ml/backend/runtimeId.js'
import {datasetHash} from '../ml/data/datasetHash.js'
import {canonicalSpecBytes} from '../ml/spec/canonicalSpecBytes.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {specHash} from '../ml/spec/specHash.js'
import {taskStepRange} from '../ml/train/taskStepRange.js'
import {trainJob, type CheckpointRef, type TrainResult} from '../ml/train/trainJob.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleRoot} from '../ml/checkpoint/merkle.js'
import {isHash} from '../store/sha256.js'
import type {BlobStore} from '../store/types.js'
import type {StrategyContext, StrategyOutcome} from './context.js'
import {copyProof} from './copyProof.js'
import {AdversaryInputError} from './errors.js'
import {forge} from './forge.js'
import {noise} from './noise.js'
import {randomWeights} from './randomWeights.js'
import {skipSteps} from './skipSteps.js'
import {parseStrategyName, type StrategyName} from './strategies.js'
import {truncate} from './truncate.js'
import {wrongData} from './wrongData.js'

export type CheatParameters = {
  strategy: StrategyName
  spec: JobSpec
  store: BlobStore
  /** Default `wasm`. */
  backend?: BackendChoice | undefined
  /** wasm only: force a binary variant (see selectBackend). */
  wasmVariant?: WasmVariant | undefined
  /** The cheater's own randomness (a u32; default 0): which segments forge fakes, which checkpoints noise perturbs, the random weights. */
  seed?: number | undefined
  /** copy only: the manifest hash of the proof to present (its blobs must be in `store`). */
  copyFrom?: Hex | undefined
  /** A split task's start: its parent's final checkpoint, as trainJob's `start` (required when the task's range starts above 0). */
  start?: {hash: Hex} | undefined
  /** After each training step actually run: its step count and batch loss (forces a device read per step). */
  onStep?: ((step: number, loss: number) => void) | undefined
  /** After each committed checkpoint is stored, in step order; awaited. */
  onCheckpoint?: ((checkpoint: CheckpointRef) => void | Promise<void>) | undefined
  signal?: AbortSignal | undefined
}

export type CheatResult = TrainResult & {
  strategy: StrategyName
  /** Training steps actually run / the task's steps (copy from an existing proof: 0). */
  computeFraction: number
  /** Segment indices whose committed end checkpoint is not what an honest replay of the segment gives. */
  fakedSegments: number[]
}

const strategies: Record<Exclude<StrategyName, 'honest'>, (context: StrategyContext) => Promise<StrategyOutcome>> = {
  'random-weights': randomWeights,
  'skip-steps': skipSteps,
  'wrong-data': wrongData,
  copy: copyProof,
  truncate,
  noise,
  forge,
}

function validate(parameters: CheatParameters): StrategyName {
  const strategy = parseStrategyName(parameters.strategy)
  const {seed, copyFrom, backend} = parameters
  if (seed !== undefined && (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff))
    throw new AdversaryInputError(`seed: expected an integer in [0, 4294967295], got ${seed}`)
  if (backend !== undefined && !backendChoices.includes(backend))
    throw new AdversaryInputError(`backend: expected one of ${backendChoices.join(', ')}, got ${JSON.stringify(backend)}`)
  if (copyFrom !== undefined) {
    if (strategy !== 'copy') throw new AdversaryInputError(`copyFrom: only the copy strategy takes a source proof, got strategy ${strategy}`)
    if (!isHash(copyFrom)) throw new AdversaryInputError(`copyFrom: expected a manifest hash (0x followed by 64 lowercase hex digits), got ${JSON.stringify(copyFrom)}`)
  }
  return strategy
}

/**
 * Produces a proof of learning for `spec` with a cheating strategy (docs/adversaries.md), exactly as an
 * honest solver would publish it: checkpoint blobs and the spec in `store`, a proof manifest blob, and
 * the Merkle root to commit on chain. `honest` is {@link trainJob}. The result says how much training
 * the strategy ran (`computeFraction`) and which segments it faked, i.e. which sampled segments make
 * `verifyProof` reject it.
 *
 * @throws AdversaryInputError (exit code 2) for an unknown strategy, a bad seed, backend or copy source
 * @throws TrainingAbortedError when `signal` aborts
 */
export async function cheat(parameters: CheatParameters): Promise<CheatResult> {
  const started = performance.now()
  const strategy = validate(parameters)
  const {spec, store} = parameters
  if (strategy === 'honest') {
    const {backend, wasmVariant, onStep, onCheckpoint, signal, start} = parameters
    const result = await trainJob({spec, store, backend, wasmVariant, onStep, onCheckpoint, signal, start})
    return {...result, strategy, computeFraction: 1, fakedSegments: []}
  }
  await store.put(canonicalSpecBytes(spec))
  const outcome = await strategies[strategy]({
    spec,
    store,
    backend: parameters.backend ?? 'wasm',
    wasmVariant: parameters.wasmVariant,
    seed: parameters.seed ?? 0,
    copyFrom: parameters.copyFrom,
    start: parameters.start,
    onStep: parameters.onStep,
    onCheckpoint: parameters.onCheckpoint,
    signal: parameters.signal,
  })
  const manifest: ProofManifest = outcome.manifest ?? {
    version: 1,
    specHash: specHash(spec),
    datasetHash: datasetHash(spec),
    runtime: outcome.runtime,
    checkpointInterval: spec.proof.checkpointInterval,
    checkpoints: outcome.checkpoints,
    merkleRoot: merkleRoot(outcome.checkpoints.map((c) => c.hash)),
  }
  const manifestHash = await store.putJson(manifest)
  const range = taskStepRange(spec)
  const last = outcome.checkpoints.at(-1)?.step ?? range.start
  return {
    checkpoints: outcome.checkpoints,
    manifest,
    manifestHash,
    proofRoot: manifest.merkleRoot,
    runtime: outcome.runtime,
    finalLoss: outcome.finalLoss,
    seconds: (performance.now() - started) / 1000,
    strategy,
    // a cheater never stops early: it ignores training.stopAt (the verifier's stop-rule check catches that)
    totalSteps: last - range.start,
    stoppedEarly: last < range.end,
    accuracies: [],
    computeFraction: outcome.trainedSteps / (range.end - range.start),
    fakedSegments: outcome.fakedSegments,
  }
}
