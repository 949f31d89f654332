import {AdversaryInputError} from './errors.js'

/**
 * The chance that a verifier sampling `sampled` segments (the job's `verification.segments`) with
 * selectSegments replays at least one of `fakedSegments`, out of `segmentCount`. The last segment is
 * always replayed, so faking it is always caught; the other s - 1 samples (s = min(sampled, n)) are
 * uniform without replacement over the first n - 1 segments, so with m of those faked
 *
 *     P(caught) = 1 - C(n - 1 - m, s - 1) / C(n - 1, s - 1) = 1 - prod_{i < s-1} (n - 1 - m - i) / (n - 1 - i)
 *
 * (about 1 - (1 - m / (n - 1))^(s - 1) when n is large).
 */
export function detectionProbability({segmentCount, fakedSegments, sampled}: {segmentCount: number; fakedSegments: readonly number[]; sampled: number}): number {
  if (!Number.isInteger(segmentCount) || segmentCount < 1) throw new AdversaryInputError(`segmentCount: expected a positive integer, got ${segmentCount}`)
  if (!Number.isInteger(sampled) || sampled < 1) throw new AdversaryInputError(`sampled: expected a positive integer, got ${sampled}`)
  const faked = new Set(fakedSegments)
  for (const s of faked)
    if (!Number.isInteger(s) || s < 0 || s >= segmentCount) throw new AdversaryInputError(`fakedSegments: expected indices in [0, ${segmentCount - 1}], got ${s}`)
  if (faked.size === 0) return 0
  if (faked.has(segmentCount - 1)) return 1
  const pool = segmentCount - 1
  const draws = Math.min(sampled, segmentCount) - 1
  let missed = 1
  for (let i = 0; i < draws; i++) missed *= Math.max(0, pool - faked.size - i) / (pool - i)
  return 1 - missed
}

/** The smallest sample size (`verification.segments`) that catches `fakedCount` faked segments of the first n - 1 with at least `target` probability. */
export function samplesForDetection({segmentCount, fakedCount, target}: {segmentCount: number; fakedCount: number; target: number}): number {
  if (!(target > 0 && target <= 1)) throw new AdversaryInputError(`target: expected a probability in (0, 1], got ${target}`)
  if (!Number.isInteger(fakedCount) || fakedCount < 1 || fakedCount > segmentCount - 1)
    throw new AdversaryInputError(`fakedCount: expected an integer in [1, ${segmentCount - 1}], got ${fakedCount}`)
  const faked = Array.from({length: fakedCount}, (_, i) => i)
  for (let s = 1; s <= segmentCount; s++) if (detectionProbability({segmentCount, fakedSegments: faked, sampled: s}) >= target - 1e-12) return s
  return segmentCount
}
