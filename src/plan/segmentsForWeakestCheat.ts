import {segmentsForTarget} from './detectionProbability.js'
import {PlanError} from './errors.js'

/**
 * Segments the weakest cheat of the adversary library fakes in a proof of `segmentCount` segments: forge's
 * ceil((n - 1) / 2) of the non-final ones (docs/adversaries.md). Every other strategy fakes the final segment
 * (always replayed) or fails the initial-weights check, and noise fakes at least ceil(n / 2) + 1 segments, so a
 * sample that catches forge catches them with at least that probability (src/economics, strategyDetection).
 */
export function weakestCheatFaked(segmentCount: number): number {
  return Math.ceil((segmentCount - 1) / 2)
}

/**
 * The smallest sample (segments a verifier replays, the final one included) whose chance of catching the
 * weakest cheat reaches `target`: what `verification.targetDetection` sizes `verification.segments` to. A
 * proof of one segment has nothing to forge (its only segment is always replayed), so it needs 1.
 *
 * @throws PlanError when the target is not a probability in (0, 1]
 */
export function segmentsForWeakestCheat({segmentCount, target}: {segmentCount: number; target: number}): number {
  if (!(target > 0 && target <= 1)) throw new PlanError(`target: expected a probability in (0, 1], got ${target}`)
  const faked = weakestCheatFaked(segmentCount)
  return faked === 0 ? 1 : segmentsForTarget({segmentCount, faked, target})
}
