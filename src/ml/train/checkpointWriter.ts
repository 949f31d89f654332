import type {Hex} from 'viem'

import type {BlobStore} from '../../store/types.js'
import {encodeCheckpoint} from '../checkpoint/encodeCheckpoint.js'
import type {Checkpoint} from '../checkpoint/types.js'

/** A stored checkpoint: its absolute step and the hash of its canonical bytes. */
export type StoredCheckpoint = {step: number; hash: Hex}

export type CheckpointWriter = {
  /**
   * Announces the checkpoint before this one (waiting for its write), then starts writing this one. `loss` is the
   * batch loss of the step it was taken at (none for a task's start), announced with it.
   */
  add(state: Checkpoint, loss?: number): Promise<void>
  /** Waits for the checkpoint being written and announces it: every added checkpoint has then been announced. */
  flush(): Promise<void>
  /** After a failure: waits for a write in flight, so its bytes are whole on disk, without announcing it. */
  settle(): Promise<void>
}

/**
 * Stores a run's checkpoints one interval behind training. The write and fsync of checkpoint N (on a model of a
 * millisecond a step, most of what a checkpoint costs) overlap the steps to N + 1; N is announced to `onStored`
 * at the next boundary, once it is on disk, with the loss of its step (a listener drawing a
 * training curve cannot take it from the steps it has seen by then). So a listener is still told only of stored checkpoints, in order,
 * and never while a step runs (the solver's listener runs its chain duties between steps, as before). A crash
 * between a write and its announcement loses nothing: the checkpoint is recomputed from the one before.
 */
export function createCheckpointWriter(store: BlobStore, onStored: (checkpoint: StoredCheckpoint, loss: number | undefined) => Promise<void>): CheckpointWriter {
  let inFlight: {step: number; loss: number | undefined; write: Promise<Hex>} | undefined
  const flush = async () => {
    if (!inFlight) return
    const {step, loss, write} = inFlight
    inFlight = undefined
    await onStored({step, hash: await write}, loss)
  }
  return {
    async add(state, loss) {
      await flush()
      const write = store.put(encodeCheckpoint(state))
      // its failure is thrown by the flush that awaits it; this keeps it from counting as unhandled meanwhile
      write.catch(() => undefined)
      inFlight = {step: state.step, loss, write}
    },
    flush,
    async settle() {
      await inFlight?.write.catch(() => undefined)
      inFlight = undefined
    },
  }
}
