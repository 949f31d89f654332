import {InvalidInputError} from '../errors/base.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleProof, merkleRoot} from '../ml/checkpoint/merkle.js'
import type {BlobStore} from '../store/types.js'
import type {SegmentProof} from './disputeRejection.js'
import type {Task} from './types.js'

/**
 * The Merkle proofs that checkpoints `segment` and `segment + 1` of a task's committed proof are what the
 * manifest in the store says (the market checks them against `proofRoot`, docs/disputes.md, lifecycle 6).
 */
export async function segmentProof(store: BlobStore, task: Pick<Task, 'id' | 'manifestHash' | 'proofRoot'>, segment: number): Promise<SegmentProof> {
  const manifest = await store.getJson<ProofManifest>(task.manifestHash)
  const hashes = manifest.checkpoints.map((checkpoint) => checkpoint.hash)
  if (!Number.isInteger(segment) || segment < 0 || segment + 1 >= hashes.length) {
    throw new InvalidInputError(`segment: expected an integer in [0, ${hashes.length - 2}] for task ${task.id}, got ${segment}`)
  }
  if (merkleRoot(hashes) !== task.proofRoot) throw new InvalidInputError(`task ${task.id}: its manifest ${task.manifestHash} does not hash to the committed proof root`)
  return {startHash: hashes[segment]!, startProof: merkleProof(hashes, segment), endHash: hashes[segment + 1]!, endProof: merkleProof(hashes, segment + 1)}
}
