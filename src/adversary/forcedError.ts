import type {Hex} from 'viem'

import {decodeCheckpoint} from '../ml/checkpoint/decodeCheckpoint.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {prngStream} from '../ml/prng/prngStream.js'
import type {CheckpointRef} from '../ml/train/trainJob.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import {merkleRoot} from '../ml/checkpoint/merkle.js'
import type {BlobStore} from '../store/types.js'
import {addNoise} from './fakeState.js'

/**
 * How far a forced error moves each weight. Far above any profiled cross-runtime drift (thresholds are
 * around 1e-6 on the fixtures), so a forced error is rejected in tolerance mode as surely as in exact mode.
 */
export const forcedErrorAmplitude = 1e-2

export type ForcedErrorProof = {manifest: ProofManifest; manifestHash: Hex; proofRoot: Hex; checkpoints: CheckpointRef[]}

/**
 * The deliberately wrong proof a solver publishes when the forced-error coin lands (docs/disputes.md,
 * "Task lifecycle", 3): the honest proof with every checkpoint after step 0 perturbed, so the replay of any
 * segment from its committed start misses its committed end, and any honest verifier's sample rejects it.
 * The noise comes from a stream keyed by the solver's secret, so nobody can tell it from the proof alone.
 * The checkpoints, manifest and spec stay in `store` like any proof's; the honest one is kept for the reveal.
 */
export async function forcedErrorProof({store, honest, secret}: {store: BlobStore; honest: ProofManifest; secret: Hex}): Promise<ForcedErrorProof> {
  const checkpoints: CheckpointRef[] = []
  for (const [index, ref] of honest.checkpoints.entries()) {
    if (index === 0) {
      checkpoints.push({...ref})
      continue
    }
    const state = decodeCheckpoint(await store.get(ref.hash))
    const stream = prngStream(`gensyn/forced-error/v1 secret=${secret} step=${ref.step}`)
    const hash = await store.put(encodeCheckpoint(addNoise(state, stream, forcedErrorAmplitude)))
    checkpoints.push({step: ref.step, hash})
  }
  const manifest: ProofManifest = {...honest, checkpoints, merkleRoot: merkleRoot(checkpoints.map((c) => c.hash))}
  const manifestHash = await store.putJson(manifest)
  return {manifest, manifestHash, proofRoot: manifest.merkleRoot, checkpoints}
}
