import type {Hex} from 'viem'
import {merkleRoot} from '../checkpoint/merkle.js'
import type {ProofManifest} from '../checkpoint/manifest.js'
import type {BlobStore} from '../../store/types.js'
import {selectBackend} from '../backend/selectBackend.js'
import type {BackendChoice, RuntimeId, WasmVariant} from '../backend/runtimeId.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'
import {datasetHash} from '../data/datasetHash.js'
import {evaluateCheckpoint} from '../evaluate/evaluateCheckpoint.js'
import {canonicalSpecBytes} from '../spec/canonicalSpecBytes.js'
import type {JobSpec} from '../spec/schema.js'
import {specHash} from '../spec/specHash.js'
import {checkpointSchedule} from './checkpointSchedule.js'
import {createCheckpointWriter} from './checkpointWriter.js'
import {ResumeError} from './errors.js'
import {startCheckpoint} from './startCheckpoint.js'
import {reachesStopTarget, type CheckpointAccuracy} from './stopRule.js'
import {taskStepRange} from './taskStepRange.js'
import {responsiveYieldMs, TrainingSession} from './trainingSession.js'

export type CheckpointRef = {step: number; hash: Hex}

export type TrainJobParameters = {
  spec: JobSpec
  store: BlobStore
  /** Default `wasm`. */
  backend?: BackendChoice | undefined
  /** wasm only: force a binary variant (see selectBackend). */
  wasmVariant?: WasmVariant | undefined
  /** After each step: the absolute step count reached (start + 1 .. end) and that step's batch loss. Forces a device read per step. */
  onStep?: ((step: number, loss: number) => void) | undefined
  /**
   * After each checkpoint is stored (including the task's first), in order; awaited, so it may persist the
   * reference. Checkpoints are written one interval behind training (createCheckpointWriter), so this is called at
   * the next checkpoint boundary (the last one's before trainJob returns), never while a step runs.
   */
  onCheckpoint?: ((checkpoint: CheckpointRef, loss: number | undefined) => void | Promise<void>) | undefined
  /**
   * The state a split task starts from: its parent task's final checkpoint (in `store`), whose step must be the
   * task's range start (taskStepRange). Required when the range starts above step 0; for a range starting at
   * 0 it may only name the job's initial state.
   */
  start?: {hash: Hex} | undefined
  /**
   * Continue from a stored checkpoint of this task (crash recovery). `checkpoints` are the task's earlier
   * checkpoints up to and including `step` (as reported by onCheckpoint); without them the trainer
   * recomputes that prefix from the task's start and checks it ends at `hash`.
   */
  resume?: {step: number; hash: Hex; checkpoints?: CheckpointRef[] | undefined} | undefined
  signal?: AbortSignal | undefined
  /** Worker threads for the micro-batch gradients (default: --threads, GENSYN_THREADS or the cores); never changes the result. */
  threads?: number | undefined
}

export type TrainResult = {
  /** In step order, absolute step numbers: the task's start, then every checkpoint trained. */
  checkpoints: CheckpointRef[]
  manifest: ProofManifest
  manifestHash: Hex
  /** Merkle root over the checkpoint hashes (= manifest.merkleRoot), committed on chain. */
  proofRoot: Hex
  runtime: RuntimeId
  /** Batch loss of the last step run (NaN if the run resumed at the last step). */
  finalLoss: number
  seconds: number
  /**
   * Of `seconds`, those in the training steps themselves; the rest is set-up, checkpoints and the manifest (the
   * proof's cost, bench/proofOverhead.ts). Measured by trainJob only, not for an adversary's proof.
   */
  stepSeconds?: number | undefined
  /** Steps the proof covers: its last checkpoint's step minus the task's range start (commitProof's `totalSteps`). */
  totalSteps: number
  /** The task ended before its range's end because a checkpoint reached `training.stopAt` (docs/market.md, section 2). */
  stoppedEarly: boolean
  /**
   * With `training.stopAt`: the test accuracy of every checkpoint after the first, in step order, measured on the
   * training runtime (the last one is where the task stopped). Empty without stopAt (nothing is evaluated).
   */
  accuracies: CheckpointAccuracy[]
}

/**
 * Trains a task and produces its proof of learning: checkpoints (canonical bytes, stored in `store`) at the
 * task's start (step 0, or a split task's parent's final checkpoint, `start`), every `proof.checkpointInterval`
 * steps and the end of its range (`checkpointSchedule`, absolute step numbers), then the proof manifest
 * (stored as JSON). The spec's canonical bytes are stored too, under its spec hash.
 *
 * Early stop: with `training.stopAt`, each checkpoint after the first is scored on the test set
 * (`evaluateCheckpoint`) on the training runtime itself (so wasm training is scored on wasm, bit-reproducibly,
 * and no backend switch happens mid-training), and the task ends at the first one that reaches the target.
 *
 * Deterministic: the same task on the same runtime gives the same checkpoint hashes, and replaying any segment
 * from its starting checkpoint gives its ending checkpoint bit for bit; the N tasks of a split job, each started
 * from the one before's final checkpoint, give the unsplit job's checkpoints.
 *
 * @throws StartCheckpointError for a missing or wrong `start`; ResumeError for a wrong `resume`
 */
export async function trainJob(parameters: TrainJobParameters): Promise<TrainResult> {
  const started = performance.now()
  const {spec, store, onStep, onCheckpoint, resume, signal} = parameters
  const runtime = await selectBackend(parameters.backend ?? 'wasm', {wasmVariant: parameters.wasmVariant})
  const range = taskStepRange(spec)
  const schedule = checkpointSchedule(spec)
  const begin = await startCheckpoint({spec, store, start: parameters.start})
  await store.put(canonicalSpecBytes(spec))
  const session = new TrainingSession(spec, {threads: parameters.threads})
  const checkpoints: CheckpointRef[] = []
  const writer = createCheckpointWriter(store, async (ref, loss) => {
    checkpoints.push(ref)
    await onCheckpoint?.(ref, loss)
  })
  let stepSeconds = 0
  const timed = async (steps: () => Promise<number>) => {
    const before = performance.now()
    const loss = await steps()
    stepSeconds += (performance.now() - before) / 1000
    return loss
  }
  try {
    const accuracies: CheckpointAccuracy[] = []
    const save = (state: Checkpoint, loss?: number) => writer.add(state, loss)
    /** Scores a checkpoint after the first (with stopAt) and says whether the task stops there. */
    const stopsAt = async (step: number, state: Checkpoint): Promise<boolean> => {
      if (spec.training.stopAt === undefined) return false
      const {testAccuracy, testLoss} = await evaluateCheckpoint({spec, checkpoint: state, backend: runtime.backend})
      accuracies.push({step, testAccuracy, testLoss})
      return reachesStopTarget(spec, {testAccuracy, testLoss})
    }
    let stopped = false
    if (resume && !(resume.checkpoints === undefined && resume.step === range.start)) {
      if (!schedule.includes(resume.step))
        throw new ResumeError(`resume.step: expected a checkpoint step of the task (${schedule.slice(0, 4).join(', ')}, ...), got ${resume.step}`)
      const cp = decodeCheckpoint(await store.get(resume.hash))
      if (cp.step !== resume.step) throw new ResumeError(`resume: checkpoint ${resume.hash} is at step ${cp.step}, expected ${resume.step}`)
      if (resume.checkpoints) {
        const expected = schedule.filter((s) => s <= resume.step)
        const given = resume.checkpoints.map((c) => c.step)
        const first = resume.checkpoints[0]
        const last = resume.checkpoints[resume.checkpoints.length - 1]
        if (given.join(',') !== expected.join(',') || last?.hash !== resume.hash)
          throw new ResumeError(`resume.checkpoints: expected steps ${expected.join(', ')} ending with ${resume.hash}, got steps ${given.join(', ')}`)
        if (first?.hash !== begin.hash)
          throw new ResumeError(`resume.checkpoints: expected the task's start ${begin.hash} at step ${range.start}, got ${first?.hash}`)
        checkpoints.push(...resume.checkpoints)
        // The stop rule looks at every checkpoint: a crash may have come after the stopping one was stored.
        for (const ref of resume.checkpoints.slice(1)) {
          const state = ref.hash === resume.hash ? cp : decodeCheckpoint(await store.get(ref.hash))
          if (await stopsAt(ref.step, state)) {
            checkpoints.splice(checkpoints.indexOf(ref) + 1)
            stopped = true
            break
          }
        }
        session.load(cp)
      } else {
        session.load(begin.state)
        await save(begin.state)
        for (const next of schedule.filter((s) => s > range.start && s <= resume.step)) {
          const loss = await timed(() => session.run(next, {signal, yieldEveryMs: responsiveYieldMs}))
          const state = await session.snapshot()
          await save(state, loss)
          // a task that reaches its target before the resume point ends there (this task's own run never got past it)
          if (await stopsAt(next, state)) {
            stopped = true
            break
          }
        }
        await writer.flush()
        const reached = checkpoints[checkpoints.length - 1]
        if (!stopped && reached?.hash !== resume.hash)
          throw new ResumeError(`resume: checkpoint at step ${resume.step} recomputes to ${reached?.hash}, expected ${resume.hash}`, {
            details: 'the stored checkpoint was made by another job, runtime or code version',
          })
      }
    } else {
      session.load(begin.state)
      await save(begin.state)
    }
    let finalLoss = Number.NaN
    if (!stopped) {
      for (const next of schedule.filter((s) => s > session.step)) {
        finalLoss = await timed(() => session.run(next, {onStep, signal, yieldEveryMs: responsiveYieldMs}))
        const state = await session.snapshot()
        await save(state, finalLoss)
        if (await stopsAt(next, state)) {
          stopped = true
          break
        }
      }
    }
    await writer.flush()
    const last = checkpoints[checkpoints.length - 1] as CheckpointRef
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
      stepSeconds,
      totalSteps: last.step - range.start,
      stoppedEarly: last.step < range.end,
      accuracies,
    }
  } finally {
    // an abort or a failure leaves the checkpoint being written whole on disk; a resume recomputes it
    await writer.settle()
    session.dispose()
  }
}
