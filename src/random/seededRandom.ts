import seedrandom from 'seedrandom'

/**
 * A source of numbers in [0, 1): repeatable from `seed` (a devnet actor's derived seed), else Math.random for a
 * run nobody asked to replay.
 */
export function seededRandom(seed: string | undefined): () => number {
  return seed === undefined ? Math.random : seedrandom(seed)
}
