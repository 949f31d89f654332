import type {Hex} from 'viem'
import {ReplayError} from './errors.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'

/**
 * A proof's last checkpoint (the model it delivers, and the state the next task of a split job starts from),
 * with its leaf index in the proof's Merkle tree (`checkpoints.length - 1`, the on-chain checkpointCount - 1).
 *
 * @throws ReplayError for a manifest without checkpoints
 */
export function finalCheckpointOf(manifest: Pick<ProofManifest, 'checkpoints'>): {hash: Hex; step: number; index: number} {
  const index = manifest.checkpoints.length - 1
  const last = manifest.checkpoints[index]
  if (last === undefined) throw new ReplayError('manifest checkpoints: expected at least one checkpoint, got none')
  return {hash: last.hash, step: last.step, index}
}
