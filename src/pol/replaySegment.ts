import type {Hex} from 'viem'
import {runtimeIdString, sameRuntime, type BackendName} from '../ml/backend/runtimeId.js'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {CheckpointMismatchError} from '../ml/train/errors.js'
import {TrainingSession} from '../ml/train/trainingSession.js'
import type {BlobStore} from '../store/types.js'
import {ReplayError, RuntimeMismatchError} from './errors.js'
import type {ProofManifest} from './manifest.js'

export type SegmentReplay = {
  segment: number
  startStep: number
  endStep: number
  /** The committed hash of the segment's end checkpoint. */
  expected: Hex
  /** The hash the replay produced. */
  actual: Hex
  match: boolean
  seconds: number
}

/**
 * Replays segment `segment` of a proof: loads the committed checkpoint at its start from the store,
 * trains to its end step on the manifest's runtime, and compares the resulting checkpoint's hash with
 * the committed one. Runs only on the runtime the manifest names.
 *
 * @throws RuntimeMismatchError when `backend` (or this process's wasm variant) is not the manifest's runtime
 * @throws BlobNotFoundError / BlobIntegrityError / CheckpointFormatError / CheckpointMismatchError when
 *   the starting checkpoint is missing, corrupt or not this job's
 */
export async function replaySegment({
  spec,
  store,
  manifest,
  segment,
  backend,
}: {
  spec: JobSpec
  store: BlobStore
  manifest: ProofManifest
  segment: number
  backend?: BackendName | undefined
}): Promise<SegmentReplay> {
  const started = performance.now()
  const start = manifest.checkpoints[segment]
  const end = manifest.checkpoints[segment + 1]
  if (!Number.isInteger(segment) || !start || !end)
    throw new ReplayError(`segment: expected an integer in [0, ${manifest.checkpoints.length - 2}], got ${segment}`)
  const wanted = manifest.runtime
  if (backend !== undefined && backend !== wanted.backend)
    throw new RuntimeMismatchError(`runtime: the proof was made on ${runtimeIdString(wanted)}, refusing to replay it on backend ${backend}`)
  let runtime
  try {
    runtime = await selectBackend(wanted.backend, {wasmVariant: wanted.wasmVariant})
  } catch (error) {
    throw new RuntimeMismatchError(`runtime: cannot run ${runtimeIdString(wanted)} here: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`, {cause: error})
  }
  if (!sameRuntime(runtime, wanted))
    throw new RuntimeMismatchError(`runtime: the proof was made on ${runtimeIdString(wanted)}, this verifier runs ${runtimeIdString(runtime)}`)
  const checkpoint = decodeCheckpoint(await store.get(start.hash))
  if (checkpoint.step !== start.step)
    throw new CheckpointMismatchError(`checkpoint ${start.hash}: expected step ${start.step}, got ${checkpoint.step}`)
  const session = new TrainingSession(spec)
  try {
    session.load(checkpoint)
    await session.run(end.step)
    const actual = checkpointHash(encodeCheckpoint(session.snapshot()))
    return {
      segment,
      startStep: start.step,
      endStep: end.step,
      expected: end.hash,
      actual,
      match: actual === end.hash,
      seconds: (performance.now() - started) / 1000,
    }
  } finally {
    session.dispose()
  }
}
