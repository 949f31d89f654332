import {createHash, type Hash} from 'node:crypto'

/**
 * gensyn's deterministic random stream (documented in docs/checkpoint-format.md, "Randomness"): a
 * sha256 counter-mode generator. For a label L (an ASCII string such as
 * `gensyn/init/v1 seed=42 weight=0/dense/kernel`), block i (i = 0, 1, 2, ...) is
 *
 *     sha256( utf8(L) || 0x00 || u64le(i) )
 *
 * and the stream is the blocks' bytes read as consecutive little-endian uint32 words (8 per block).
 * Only sha256 and integer/IEEE-754 double arithmetic are involved, so any language reproduces it
 * exactly, on any machine, independent of the ML backend.
 */
export type PrngStream = {
  /** The next uint32 word. */
  nextU32(): number
  /** The next word as a uniform double in [0, 1) with 24 bits: (u32 >>> 8) / 2^24 (exact in float32). */
  nextUnit(): number
  /** A uniform integer in [0, n) for 1 <= n <= 2^21: floor(u32 * n / 2^32) (exact in doubles). */
  nextBelow(n: number): number
}

export function prngStream(label: string): PrngStream {
  const prefix: Hash = createHash('sha256').update(Buffer.from(label, 'utf8')).update(Buffer.from([0]))
  const counter = Buffer.alloc(8)
  let block = 0
  let words: Uint32Array = new Uint32Array(0)
  let next = 0
  const refill = () => {
    counter.writeBigUInt64LE(BigInt(block++))
    const digest = prefix.copy().update(counter).digest()
    words = new Uint32Array(8)
    for (let i = 0; i < 8; i++) words[i] = digest.readUInt32LE(i * 4)
    next = 0
  }
  const nextU32 = () => {
    if (next >= words.length) refill()
    return words[next++] as number
  }
  return {
    nextU32,
    nextUnit: () => (nextU32() >>> 8) / 16777216,
    nextBelow: (n: number) => {
      if (!Number.isInteger(n) || n < 1 || n > 2 ** 21) throw new RangeError(`nextBelow: expected an integer in [1, 2^21], got ${n}`)
      return Math.floor((nextU32() * n) / 4294967296)
    },
  }
}

/** Fisher-Yates shuffle of [0, n) driven by a stream: for i = n-1 down to 1, swap i with nextBelow(i + 1). */
export function permutation(stream: PrngStream, n: number): Int32Array {
  const out = new Int32Array(n)
  for (let i = 0; i < n; i++) out[i] = i
  for (let i = n - 1; i > 0; i--) {
    const j = stream.nextBelow(i + 1)
    const t = out[i] as number
    out[i] = out[j] as number
    out[j] = t
  }
  return out
}
