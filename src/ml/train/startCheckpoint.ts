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
 * step 0, else `start` (a split task's parent's final checkpoint) or the averaged checkpoint a parallel split's
 * task names (`split.start`), read from `store`, which must be at the range's first step.
 *
 * @throws StartCheckpointError when `start` is needed and missing, is not in the store, or is at another step;
 *   or, for a range starting at 0, names anything but the initial state
 */
export async function startCheckpoint({spec, store, start}: {spec: JobSpec; store: BlobStore; start?: {hash: Hex} | undefined}): Promise<{state: Checkpoint; hash: Hex}> {
  const range = taskStepRange(spec)
  const task = spec.split?.index === undefined ? 'the job' : spec.split.shard === undefined ? `task ${spec.split.index} of ${spec.split.tasks}` : `shard ${spec.split.shard} of round ${spec.split.index}`
  if (range.start === 0) {
    const state = initialCheckpoint(spec)
    const hash = checkpointHash(encodeCheckpoint(state))
    if (start !== undefined && start.hash !== hash)
      throw new StartCheckpointError(`start: ${task} starts at step 0 from the seed-derived initial state ${hash}, got ${start.hash}`)
    return {state, hash}
  }
  const pinned = spec.split?.start as Hex | undefined
  if (start !== undefined && pinned !== undefined && start.hash !== pinned)
    throw new StartCheckpointError(`start: ${task} starts from the averaged checkpoint its spec names (split.start ${pinned}), got ${start.hash}`)
  const from = start ?? (pinned === undefined ? undefined : {hash: pinned})
  if (from === undefined)
    throw new StartCheckpointError(`start: ${task} trains steps ${range.start}-${range.end}; expected the parent task's final checkpoint (step ${range.start}), got none`)
  return {state: await readStart(store, from.hash, range.start, task), hash: from.hash}
}

/** The checkpoint `hash` from `store`, which must be at `step` (where `task` starts). */
async function readStart(store: BlobStore, hash: Hex, step: number, task: string): Promise<Checkpoint> {
  let state: Checkpoint
  try {
    state = decodeCheckpoint(await store.get(hash))
  } catch (error) {
    throw new StartCheckpointError(`start: checkpoint ${hash}: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`, {cause: error})
  }
  if (state.step !== step) throw new StartCheckpointError(`start: checkpoint ${hash} is at step ${state.step}, expected step ${step} (${task} starts there)`)
  return state
}
