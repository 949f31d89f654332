import type {Hex} from 'viem'
import {BaseError} from '../errors/base.js'
import {prngStream} from '../ml/prng/prngStream.js'
import {isHash} from '../store/sha256.js'

export class SegmentSelectionError extends BaseError {
  override name = 'SegmentSelectionError'
}

/** How a verifier samples segments (docs/verification.md, "Sampling"). */
export type SamplingStrategy = 'uniform' | 'top-q'

export const samplingStrategies: readonly SamplingStrategy[] = ['uniform', 'top-q']

export type SelectSegmentsParameters = {
  /** On-chain randomness (a block hash after the commit). */
  randomness: Hex
  segmentCount: number
  /** How many segments to pick (capped at segmentCount), the final one included. */
  count: number
  /** Default `uniform`. */
  strategy?: SamplingStrategy | undefined
  /**
   * top-q only: the size of each segment's update, ‖w_end - w_start‖₂ over the committed checkpoints'
   * weights (one per segment; the final segment's is not used). NaN ranks as the largest.
   */
  updateNorms?: readonly number[] | undefined
  /** top-q only: how many of the picks go to the largest updates. Default ceil((count - 1) / 2). */
  topQ?: number | undefined
}

/** top-q's default Q for a sample of `count` segments: half the non-final picks, rounded up. */
export function defaultTopQ(count: number): number {
  return Math.ceil((count - 1) / 2)
}

/**
 * The segments a verifier replays. Returns c = min(count, segmentCount) distinct indices in ascending
 * order. The final segment (segmentCount - 1) is always included: it produces the model the submitter
 * receives.
 *
 * - `uniform` (default): the other c - 1 come from a partial Fisher-Yates shuffle of
 *   [0, segmentCount - 1) driven by the stream `gensyn/segments/v1 randomness=<0x hex>
 *   segments=<segmentCount>` (src/ml/prng/prngStream.ts): for i = 0, 1, ...: j = i +
 *   nextBelow(poolSize - i), swap positions i and j, take position i.
 * - `top-q` (the PoL "top-Q largest updates" heuristic): q = min(topQ, c - 1) picks are the non-final
 *   segments with the largest `updateNorms` (ties: lower index first); the remaining c - 1 - q come
 *   from the same partial Fisher-Yates, over the non-final segments not yet picked in ascending order.
 *   With q = 0 it equals `uniform`.
 *
 * @throws SegmentSelectionError for malformed input
 */
export function selectSegments(parameters: SelectSegmentsParameters): number[] {
  const {randomness, segmentCount, count, strategy = 'uniform'} = parameters
  if (!isHash(randomness)) throw new SegmentSelectionError(`randomness: expected 0x followed by 64 lowercase hex digits, got ${JSON.stringify(randomness)}`)
  if (!Number.isInteger(segmentCount) || segmentCount < 1 || segmentCount > 2 ** 21)
    throw new SegmentSelectionError(`segmentCount: expected an integer in [1, 2^21], got ${segmentCount}`)
  if (!Number.isInteger(count) || count < 1) throw new SegmentSelectionError(`count: expected a positive integer, got ${count}`)
  if (!samplingStrategies.includes(strategy))
    throw new SegmentSelectionError(`strategy: expected one of ${samplingStrategies.join(', ')}, got ${JSON.stringify(strategy)}`)
  const n = Math.min(count, segmentCount)
  let pool = Array.from({length: segmentCount - 1}, (_, i) => i)
  const chosen = [segmentCount - 1]
  if (strategy === 'top-q') {
    const {updateNorms} = parameters
    const topQ = parameters.topQ ?? defaultTopQ(count)
    if (!Number.isInteger(topQ) || topQ < 0 || topQ > count - 1)
      throw new SegmentSelectionError(`topQ: expected an integer in [0, count - 1 = ${count - 1}], got ${topQ}`)
    if (updateNorms === undefined || updateNorms.length !== segmentCount)
      throw new SegmentSelectionError(`updateNorms: expected one number per segment (${segmentCount}) for top-q sampling, got ${updateNorms === undefined ? 'none' : updateNorms.length}`)
    const bad = updateNorms.findIndex((x) => typeof x !== 'number' || x < 0)
    if (bad >= 0) throw new SegmentSelectionError(`updateNorms[${bad}]: expected a number >= 0, got ${updateNorms[bad]}`)
    const size = (i: number) => {
      const x = updateNorms[i] as number
      return Number.isNaN(x) ? Number.POSITIVE_INFINITY : x
    }
    const top = [...pool].sort((a, b) => (size(a) === size(b) ? a - b : size(a) > size(b) ? -1 : 1)).slice(0, Math.min(topQ, n - 1))
    chosen.push(...top)
    const taken = new Set(top)
    pool = pool.filter((i) => !taken.has(i))
  }
  const stream = prngStream(`gensyn/segments/v1 randomness=${randomness} segments=${segmentCount}`)
  for (let i = 0; chosen.length < n; i++) {
    const j = i + stream.nextBelow(pool.length - i)
    const t = pool[i] as number
    pool[i] = pool[j] as number
    pool[j] = t
    chosen.push(pool[i] as number)
  }
  return chosen.sort((a, b) => a - b)
}
