import {PlanError} from './errors.js'

export type DetectionParameters = {
  /** n: segments in the proof. */
  segmentCount: number
  /** s: segments the verifier replays (capped at n, as selectSegments does). */
  sampled: number
  /** f: segments the solver faked. */
  faked: number
  /** The plan always checks the final segment (gensyn's selectSegments does). Default true. */
  includesFinal?: boolean | undefined
  /** One of the faked segments is the final one. Default false (a cheater knows the final is always checked). */
  fakedIncludesFinal?: boolean | undefined
}

function integer(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new PlanError(`${name}: expected an integer in [${min}, ${max}], got ${value}`)
}

/** P(no faked segment among k draws without replacement from a pool of N holding f faked): C(N-f, k) / C(N, k). */
export function missProbability(pool: number, faked: number, draws: number): number {
  if (draws > pool - faked) return 0
  let p = 1
  for (let i = 0; i < draws; i++) p *= (pool - faked - i) / (pool - i)
  return p
}

/**
 * The probability that a uniform sampling plan replays at least one of `faked` faked segments
 * (hypergeometric; docs/verification.md, "Plan"). With the final segment always checked
 * (`includesFinal`, default) the other s - 1 picks are uniform over the n - 1 non-final segments:
 *
 *     fakedIncludesFinal: 1
 *     otherwise:          1 - C(n-1-f, s-1) / C(n-1, s-1)
 *
 * and without it (s uniform picks over all n): 1 - C(n-f, s) / C(n, s). The ratio of binomials is
 * evaluated as the product Π_{i<k} (N-f-i) / (N-i) in float64 (relative error below 2k·2^-53).
 *
 * @throws PlanError for counts out of range (f > n, or f > n - 1 when the final is checked and not faked)
 */
export function detectionProbability({segmentCount, sampled, faked, includesFinal = true, fakedIncludesFinal = false}: DetectionParameters): number {
  integer('segmentCount', segmentCount, 1, Number.MAX_SAFE_INTEGER)
  integer('sampled', sampled, 1, Number.MAX_SAFE_INTEGER)
  const s = Math.min(sampled, segmentCount)
  if (fakedIncludesFinal) integer('faked', faked, 1, segmentCount)
  else if (includesFinal) integer('faked', faked, 0, segmentCount - 1)
  else integer('faked', faked, 0, segmentCount)
  if (!includesFinal) return 1 - missProbability(segmentCount, faked, s)
  if (fakedIncludesFinal) return 1
  return 1 - missProbability(segmentCount - 1, faked, s - 1)
}

/**
 * The smallest number of segments to replay so that {@link detectionProbability} reaches `target`
 * (compared with a relative slack of 1e-9 on the miss probability, so float rounding of an exact hit
 * does not cost a segment).
 *
 * @throws PlanError when no sample size reaches the target (e.g. nothing is faked) or for bad numbers
 */
export function segmentsForTarget({
  segmentCount,
  faked,
  target,
  includesFinal = true,
  fakedIncludesFinal = false,
}: Omit<DetectionParameters, 'sampled'> & {target: number}): number {
  if (!(target > 0 && target <= 1)) throw new PlanError(`target: expected a probability in (0, 1], got ${target}`)
  const reaches = (sampled: number) => {
    const miss = 1 - detectionProbability({segmentCount, sampled, faked, includesFinal, fakedIncludesFinal})
    return miss <= (1 - target) * (1 + 1e-9) + Number.EPSILON
  }
  if (!reaches(segmentCount))
    throw new PlanError(`target: ${target} is out of reach with ${faked} faked of ${segmentCount} segments (replaying all of them detects with probability ${detectionProbability({segmentCount, sampled: segmentCount, faked, includesFinal, fakedIncludesFinal})})`)
  let lo = 1
  let hi = segmentCount
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (reaches(mid)) hi = mid
    else lo = mid + 1
  }
  return lo
}
