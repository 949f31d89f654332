import type {Hex} from 'viem'
import {ReplayError} from './errors.js'
import {finalCheckpointOf} from './finalCheckpointOf.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleProof} from '../ml/checkpoint/merkle.js'

/** What `commitProof` takes for a split task after the first (docs/market.md, section 4). */
export type StackedProof = {
  /** The child's first checkpoint = the parent's final one. */
  startCheckpoint: Hex
  /** Merkle siblings of leaf 0 in the child's proof (leafCount = the child's checkpointCount). */
  startProof: Hex[]
  /** Merkle siblings of the last leaf in the parent's accepted proof (index = the parent's checkpointCount - 1). */
  parentFinalProof: Hex[]
}

/**
 * The proof that a split task's proof stacks on its parent's: its first checkpoint is the parent's final one,
 * proven as leaf 0 of the child's Merkle root and as the last leaf of the parent's, in the tree of
 * src/ml/checkpoint/merkle.ts (which contracts/ProofMerkle.sol checks the same way). Pure: the parent's manifest is the one
 * its accepted task committed (its `manifestHash` on chain).
 *
 * @throws ReplayError when the child does not start from the parent's final checkpoint
 */
export function stackedProof({parent, child}: {parent: Pick<ProofManifest, 'checkpoints'>; child: Pick<ProofManifest, 'checkpoints'>}): StackedProof {
  const final = finalCheckpointOf(parent)
  const first = child.checkpoints[0]
  if (first?.hash !== final.hash)
    throw new ReplayError(`child proof checkpoint 0: expected the parent's final checkpoint ${final.hash} (step ${final.step}), got ${first?.hash}`)
  return {
    startCheckpoint: final.hash,
    startProof: merkleProof(child.checkpoints.map((c) => c.hash), 0),
    parentFinalProof: merkleProof(parent.checkpoints.map((c) => c.hash), final.index),
  }
}
