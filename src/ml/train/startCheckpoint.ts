import type {Hex} from 'viem'
import type {BlobStore} from '../../store/types.js'
import {checkpointHash} from '../checkpoint/checkpointHash.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'
import type {JobSpec} from '../spec/schema.js'
import {StartCheckpointError} from './errors.js'
import {taskStepRange} from './taskStepRange.js'

/**
 * The state a task trains from, with its hash: the job's seed-derived initial state for a range that starts at
 * step 0, else `start` (a split task's parent's final checkpoint, read from `store`), which must be at the
 * range's first step.
 *
 * @throws StartCheckpointError when `start` is needed and missing, is not in the store, or is at another step;
 *   or, for a range starting at 0, names anything but the initial state
 */
export async function startCheckpoint({spec, store, start}: {spec: JobSpec; store: BlobStore; start?: {hash: Hex} | undefined}): Promise<{state: Checkpoint; hash: Hex}> {
  const range = taskStepRange(spec)
  const task = spec.split?.index === undefined ? 'the job' : `task ${spec.split.index} of ${spec.split.tasks}`
  if (range.start === 0) {
    const state = initialCheckpoint(spec)
    const hash = checkpointHash(encodeCheckpoint(state))
    if (start !== undefined && start.hash !== hash)
      throw new StartCheckpointError(`start: ${task} starts at step 0 from the seed-derived initial state ${hash}, got ${start.hash}`)
    return {state, hash}
  }
  if (start === undefined)
    throw new StartCheckpointError(`start: ${task} trains steps ${range.start}-${range.end}; expected the parent task's final checkpoint (step ${range.start}), got none`)
  let state: Checkpoint
  try {
    state = decodeCheckpoint(await store.get(start.hash))
  } catch (error) {
    throw new StartCheckpointError(`start: checkpoint ${start.hash}: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`, {cause: error})
  }
  if (state.step !== range.start)
    throw new StartCheckpointError(`start: checkpoint ${start.hash} is at step ${state.step}, expected step ${range.start} (${task} starts there)`)
  return {state, hash: start.hash}
}
