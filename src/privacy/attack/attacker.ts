/** The known-plaintext attackers the bench runs (src/privacy/attack). */
export const attackerNames = ['linear', 'local', 'mlp'] as const
export type AttackerName = (typeof attackerNames)[number]

/** n leaked (raw, mapped) sample pairs: both count x 784 float32, row i of one is row i of the other. */
export type KnownPairs = {raw: Float32Array; mapped: Float32Array; count: number}

/**
 * A known-plaintext attacker on a keyed mapping: it sees leaked pairs (a submitter's samples that became
 * public, or that the attacker planted) and then guesses the raw form of mapped samples it has never seen.
 * It knows the mapping family and that pixels lie in [0, 1], never the key.
 */
export type Attacker = {
  readonly name: AttackerName
  /** Learns from more pairs, on top of every pair observed before. */
  observe(pairs: KnownPairs): void
  /** Its guess of the raw images (count x 784, in [0, 1]) behind `count` mapped ones. */
  reconstruct(mapped: Float32Array, count: number): Promise<Float32Array>
}

/** Pixels lie in [0, 1]: an attacker who knows it clips its guesses, which only ever lowers its error. */
export function clipToPixels(values: ArrayLike<number>): Float32Array {
  return Float32Array.from(values as ArrayLike<number>, (v) => Math.min(1, Math.max(0, v)))
}
