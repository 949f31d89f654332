import {randomBytes} from 'node:crypto'

import {type Hex, toHex} from 'viem'

import type {BackendChoice} from '../../ml/backend/index.js'
import {sha256Hex} from '../../store/sha256.js'
import type {SegmentReplay} from '../replaySegment.js'
import type {Thresholds} from '../distances/thresholds.js'
import type {VerificationMode} from '../replaySegment.js'
import {type Sampling, type VerificationReport, verifyProof} from '../verifyProof.js'
import {readBundle} from './readBundle.js'

export type VerifyBundleParameters = {
  dir: string
  /**
   * The spec hash of the job the proof must be for (from `--job` or `--spec-hash`): a proof for any other job is
   * rejected. Without it only the bundle's internal consistency is checked: the proof agrees with the spec it carries.
   */
  specHash?: Hex | undefined
  /** How many segments to replay (default: the spec's `verification.segments`). */
  segments?: number | undefined
  /** Makes the sampling repeatable: the randomness is sha256 of a label and this seed. Default: fresh random bytes. */
  seed?: string | undefined
  backend?: BackendChoice | undefined
  mode?: VerificationMode | undefined
  thresholds?: Thresholds | undefined
  sampling?: Sampling | undefined
  onSegment?: ((replay: SegmentReplay) => void) | undefined
}

export type BundleVerification = {
  report: VerificationReport
  randomness: Hex
  seed: string | undefined
  manifestHash: Hex
  /** The job's spec hash the proof was bound to, or undefined: internal consistency only. */
  jobSpecHash: Hex | undefined
}

/** Verifies a proof bundle with no chain: the same checks and replays as the on-chain verifier. */
export async function verifyBundle(parameters: VerifyBundleParameters): Promise<BundleVerification> {
  const bundle = await readBundle(parameters.dir)
  const randomness = offlineRandomness(parameters.seed)
  const report = await verifyProof({
    spec: bundle.spec,
    store: bundle.store,
    manifestHash: bundle.manifestHash,
    specHash: parameters.specHash,
    randomness,
    segments: parameters.segments,
    backend: parameters.backend,
    mode: parameters.mode,
    thresholds: parameters.thresholds,
    sampling: parameters.sampling,
    onSegment: parameters.onSegment,
  })
  return {report, randomness, seed: parameters.seed, manifestHash: bundle.manifestHash, jobSpecHash: parameters.specHash}
}

/** Offline stand-in for the block hash after a commit: repeatable with a seed, unpredictable without. */
export function offlineRandomness(seed: string | undefined): Hex {
  if (seed === undefined) return toHex(randomBytes(32))
  return sha256Hex(new TextEncoder().encode(`gensyn/offline-verification/v1 seed=${seed}`))
}
