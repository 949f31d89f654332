import type {Hex} from 'viem'
import {BaseError} from '../errors/base.js'
import {prngStream} from '../ml/prng/prngStream.js'
import {isHash} from '../store/sha256.js'

export class SegmentSelectionError extends BaseError {
  override name = 'SegmentSelectionError'
}

/**
 * The segments a verifier replays, chosen from on-chain randomness (a block hash after the commit).
 * Returns min(count, segmentCount) distinct indices in ascending order. The final segment
 * (segmentCount - 1) is always included: it produces the model the submitter receives. The other
 * count - 1 come from a partial Fisher-Yates shuffle of [0, segmentCount - 1) driven by the stream
 * `gensyn/segments/v1 randomness=<0x hex> segments=<segmentCount>` (src/ml/prng/prngStream.ts): for
 * i = 0, 1, ...: j = i + nextBelow(segmentCount - 1 - i), swap positions i and j, take position i.
 */
export function selectSegments({randomness, segmentCount, count}: {randomness: Hex; segmentCount: number; count: number}): number[] {
  if (!isHash(randomness)) throw new SegmentSelectionError(`randomness: expected 0x followed by 64 lowercase hex digits, got ${JSON.stringify(randomness)}`)
  if (!Number.isInteger(segmentCount) || segmentCount < 1 || segmentCount > 2 ** 21)
    throw new SegmentSelectionError(`segmentCount: expected an integer in [1, 2^21], got ${segmentCount}`)
  if (!Number.isInteger(count) || count < 1) throw new SegmentSelectionError(`count: expected a positive integer, got ${count}`)
  const n = Math.min(count, segmentCount)
  const stream = prngStream(`gensyn/segments/v1 randomness=${randomness} segments=${segmentCount}`)
  const pool = Array.from({length: segmentCount - 1}, (_, i) => i)
  const chosen = [segmentCount - 1]
  for (let i = 0; i < n - 1; i++) {
    const j = i + stream.nextBelow(pool.length - i)
    const t = pool[i] as number
    pool[i] = pool[j] as number
    pool[j] = t
    chosen.push(pool[i] as number)
  }
  return chosen.sort((a, b) => a - b)
}
