import type {Hex} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {CheckpointMismatchError, TrainingAbortedError} from '../ml/train/errors.js'
import {responsiveYieldMs, TrainingSession} from '../ml/train/trainingSession.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import type {BlobStore} from '../store/types.js'
import {withOperatorCorruption} from './corruptOperator.js'
import {DisputeTraceError} from './errors.js'
import type {OperatorCorruption} from './types.js'

export type SegmentParameters = {
  spec: JobSpec
  store: BlobStore
  manifest: ProofManifest
  segment: number
  /**
   * TEST-ONLY adversary (corruptOperator.ts): re-execute as a solver that trained with this corruption
   * would have. Ignored when its step is outside the segment.
   */
  corruption?: OperatorCorruption | undefined
  signal?: AbortSignal | undefined
}

/** The segment's committed start checkpoint (from the store) and its end step. */
async function segmentStart({store, manifest, segment}: SegmentParameters): Promise<{start: Checkpoint; startStep: number; endStep: number}> {
  const start = manifest.checkpoints[segment]
  const end = manifest.checkpoints[segment + 1]
  if (!Number.isInteger(segment) || !start || !end)
    throw new DisputeTraceError(`segment: expected an integer in [0, ${manifest.checkpoints.length - 2}], got ${segment}`)
  const checkpoint = decodeCheckpoint(await store.get(start.hash))
  if (checkpoint.step !== start.step) throw new CheckpointMismatchError(`checkpoint ${start.hash}: expected step ${start.step}, got ${checkpoint.step}`)
  return {start: checkpoint, startStep: start.step, endStep: end.step}
}

/**
 * Loads the segment's start into a wasm training session and runs `visit` on it with the corruption
 * armed when it falls in [startStep, toStep) (the disputed re-execution always runs on wasm, whatever
 * runtime trained).
 */
async function withSession<T>(
  parameters: SegmentParameters,
  target: (startStep: number, endStep: number) => number,
  visit: (session: TrainingSession, toStep: number) => Promise<T>,
): Promise<T> {
  const {start, startStep, endStep} = await segmentStart(parameters)
  const toStep = target(startStep, endStep)
  await selectBackend('wasm')
  // a corruption hooks this thread's kernels, so its micro-batches must run here, not on worker threads
  const session = new TrainingSession(parameters.spec, {threads: parameters.corruption === undefined ? undefined : 1})
  try {
    session.load(start)
    const {corruption} = parameters
    if (corruption === undefined || corruption.step < startStep || corruption.step >= toStep) return await visit(session, toStep)
    return await withOperatorCorruption(corruption, () => session.step, () => visit(session, toStep))
  } finally {
    session.dispose()
  }
}

/**
 * The state hash (checkpoint hash, docs/checkpoint-format.md) after every step of a proof's segment,
 * its start included: `steps` = startStep..endStep, `hashes[k]` the hash of the state at `steps[k]`.
 * Re-executes from the committed start checkpoint one step at a time on wasm; the hashes are what a
 * party posts in the pinpoint game's Steps rounds. `hashes[0]` is the committed start hash.
 *
 * @throws DisputeTraceError for a segment outside the proof
 * @throws BlobNotFoundError / BlobIntegrityError / CheckpointFormatError / CheckpointMismatchError for a
 *   start checkpoint that is missing, corrupt or not this job's
 * @throws TrainingAbortedError when `signal` aborts
 */
export async function segmentStateHashes(parameters: SegmentParameters): Promise<{steps: number[]; hashes: Hex[]}> {
  return withSession(parameters, (_, endStep) => endStep, async (session, endStep) => {
    const steps = [session.step]
    const hashes = [checkpointHash(encodeCheckpoint(await session.snapshot()))]
    while (session.step < endStep) {
      if (parameters.signal?.aborted) throw new TrainingAbortedError(session.step)
      await session.run(session.step + 1)
      steps.push(session.step)
      hashes.push(checkpointHash(encodeCheckpoint(await session.snapshot())))
    }
    return {steps, hashes}
  })
}

/**
 * The state at `step` of a proof's segment (startStep <= step <= endStep), re-executed on wasm from the
 * committed start checkpoint: the agreed state S_i a party traces once the Steps rounds end.
 *
 * @throws DisputeTraceError for a segment outside the proof or a step outside the segment
 */
export async function stateAtStep(parameters: SegmentParameters & {step: number}): Promise<Checkpoint> {
  const {step} = parameters
  const target = (startStep: number, endStep: number) => {
    if (!Number.isInteger(step) || step < startStep || step > endStep)
      throw new DisputeTraceError(`step: expected an integer in [${startStep}, ${endStep}] (segment ${parameters.segment}), got ${step}`)
    return step
  }
  return withSession(parameters, target, async (session) => {
    await session.run(step, {signal: parameters.signal, yieldEveryMs: responsiveYieldMs})
    return (await session.snapshot())
  })
}
