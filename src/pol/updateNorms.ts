import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import type {BlobStore} from '../store/types.js'
import {ReplayError} from './errors.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'

/**
 * ‖w_b - w_a‖₂ over the weights concatenated in checkpoint order (float64 sums; optimizer state
 * excluded). Number.MAX_VALUE when a weight is NaN or infinite.
 */
export function updateNorm(a: Checkpoint, b: Checkpoint): number {
  if (a.weights.length !== b.weights.length) throw new ReplayError(`update norm: expected checkpoints with the same weights, got ${a.weights.length} and ${b.weights.length} tensors`)
  let sq = 0
  for (const [i, w] of a.weights.entries()) {
    const v = b.weights[i]
    if (v === undefined || v.name !== w.name || v.values.length !== w.values.length)
      throw new ReplayError(`update norm: expected tensor ${w.name} [${w.shape.join(', ')}] on both sides, got ${v?.name} [${v?.shape.join(', ')}]`)
    for (let j = 0; j < w.values.length; j++) {
      const d = (v.values[j] as number) - (w.values[j] as number)
      sq += d * d
    }
  }
  // NaN or infinite weights: the largest finite number, so the segment ranks first and reports stay JSON
  return Number.isFinite(sq) ? Math.sqrt(sq) : Number.MAX_VALUE
}

/**
 * The size of each segment's committed update, ‖w_end - w_start‖₂, read from the checkpoints in the
 * store (one decoded checkpoint held at a time besides the previous one): the input of top-q sampling.
 *
 * @throws BlobNotFoundError / BlobIntegrityError / CheckpointFormatError / ReplayError for a checkpoint that
 *   is missing, corrupt or shaped unlike its neighbours
 */
export async function committedUpdateNorms(store: BlobStore, manifest: ProofManifest): Promise<number[]> {
  const norms: number[] = []
  let previous: Checkpoint | undefined
  for (const ref of manifest.checkpoints) {
    let current: Checkpoint
    try {
      current = decodeCheckpoint(await store.get(ref.hash))
    } catch (error) {
      throw new ReplayError(`checkpoint at step ${ref.step}: ${(error as {shortMessage?: string}).shortMessage ?? String(error)}`, {cause: error})
    }
    if (previous) norms.push(updateNorm(previous, current))
    previous = current
  }
  return norms
}
