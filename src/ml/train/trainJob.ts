import type {Hex} from 'viem'
import {merkleRoot} from '../../pol/merkle.js'
import type {ProofManifest} from '../../pol/manifest.js'
import type {BlobStore} from '../../store/types.js'
import {selectBackend} from '../backend/selectBackend.js'
import type {BackendName, RuntimeId, WasmVariant} from '../backend/runtimeId.js'
import {checkpointHash} from '../checkpoint/checkpointHash.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import {datasetHash} from '../data/datasetHash.js'
import {canonicalSpecBytes} from '../spec/canonicalSpecBytes.js'
import type {JobSpec} from '../spec/schema.js'
import {specHash} from '../spec/specHash.js'
import {checkpointSchedule} from './checkpointSchedule.js'
import {ResumeError} from './errors.js'
import {TrainingSession} from './trainingSession.js'

export type CheckpointRef = {step: number; hash: Hex}

export type TrainJobParameters = {
  spec: JobSpec
  store: BlobStore
  /** Default `wasm`. */
  backend?: BackendName | undefined
  /** wasm only: force a binary variant (see selectBackend). */
  wasmVariant?: WasmVariant | undefined
  /** After each step: the step count reached (1..steps) and that step's batch loss. Forces a device read per step. */
  onStep?: ((step: number, loss: number) => void) | undefined
  /** After each checkpoint is stored (including step 0); awaited, so it may persist the reference. */
  onCheckpoint?: ((checkpoint: CheckpointRef) => void | Promise<void>) | undefined
  /**
   * Continue from a stored checkpoint of this job (crash recovery). `checkpoints` are the job's earlier
   * checkpoints up to and including `step` (as reported by onCheckpoint); without them the trainer
   * recomputes that prefix from step 0 and checks it ends at `hash`.
   */
  resume?: {step: number; hash: Hex; checkpoints?: CheckpointRef[] | undefined} | undefined
  signal?: AbortSignal | undefined
}

export type TrainResult = {
  checkpoints: CheckpointRef[]
  manifest: ProofManifest
  manifestHash: Hex
  /** Merkle root over the checkpoint hashes (= manifest.merkleRoot), committed on chain. */
  proofRoot: Hex
  runtime: RuntimeId
  /** Batch loss of the last step run (NaN if the run resumed at the last step). */
  finalLoss: number
  seconds: number
}

/**
 * Trains a job and produces its proof of learning: checkpoints (canonical bytes, stored in `store`) at
 * step 0, every `proof.checkpointInterval` steps and the last step, then the proof manifest (stored as
 * JSON). The spec's canonical bytes are stored too, under its spec hash. Deterministic: the same job on
 * the same runtime gives the same checkpoint hashes, and replaying any segment from its starting
 * checkpoint gives its ending checkpoint bit for bit.
 */
export async function trainJob(parameters: TrainJobParameters): Promise<TrainResult> {
  const started = performance.now()
  const {spec, store, onStep, onCheckpoint, resume, signal} = parameters
  const runtime = await selectBackend(parameters.backend ?? 'wasm', {wasmVariant: parameters.wasmVariant})
  const schedule = checkpointSchedule(spec)
  await store.put(canonicalSpecBytes(spec))
  const session = new TrainingSession(spec)
  try {
    const checkpoints: CheckpointRef[] = []
    const save = async () => {
      const bytes = encodeCheckpoint(session.snapshot())
      const hash = await store.put(bytes)
      const ref = {step: session.step, hash}
      checkpoints.push(ref)
      await onCheckpoint?.(ref)
      return ref
    }
    if (resume && !(resume.checkpoints === undefined && resume.step === 0)) {
      if (!schedule.includes(resume.step))
        throw new ResumeError(`resume.step: expected a checkpoint step (${schedule.slice(0, 4).join(', ')}, ...), got ${resume.step}`)
      const cp = decodeCheckpoint(await store.get(resume.hash))
      if (cp.step !== resume.step) throw new ResumeError(`resume: checkpoint ${resume.hash} is at step ${cp.step}, expected ${resume.step}`)
      if (resume.checkpoints) {
        const expected = schedule.filter((s) => s <= resume.step)
        const given = resume.checkpoints.map((c) => c.step)
        const last = resume.checkpoints[resume.checkpoints.length - 1]
        if (given.join(',') !== expected.join(',') || last?.hash !== resume.hash)
          throw new ResumeError(`resume.checkpoints: expected steps ${expected.join(', ')} ending with ${resume.hash}, got steps ${given.join(', ')}`)
        checkpoints.push(...resume.checkpoints)
        session.load(cp)
      } else {
        session.load(initialCheckpoint(spec))
        await save()
        await session.run(resume.step, {stopAt: new Set(schedule), onBoundary: async () => void (await save()), signal})
        const reached = checkpoints[checkpoints.length - 1]
        if (reached?.hash !== resume.hash)
          throw new ResumeError(`resume: checkpoint at step ${resume.step} recomputes to ${reached?.hash}, expected ${resume.hash}`, {
            details: 'the stored checkpoint was made by another job, runtime or code version',
          })
      }
    } else {
      session.load(initialCheckpoint(spec))
      await save()
    }
    const finalLoss = await session.run(spec.training.steps, {onStep, stopAt: new Set(schedule), onBoundary: async () => void (await save()), signal})
    const manifest: ProofManifest = {
      version: 1,
      specHash: specHash(spec),
      datasetHash: datasetHash(spec),
      runtime,
      checkpointInterval: spec.proof.checkpointInterval,
      checkpoints,
      merkleRoot: merkleRoot(checkpoints.map((c) => c.hash)),
    }
    const manifestHash = await store.putJson(manifest)
    return {
      checkpoints,
      manifest,
      manifestHash,
      proofRoot: manifest.merkleRoot,
      runtime,
      finalLoss,
      seconds: (performance.now() - started) / 1000,
    }
  } finally {
    session.dispose()
  }
}
