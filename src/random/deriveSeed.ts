import {type Hex, keccak256, toHex} from 'viem'

/**
 * The seed of one actor (or one use) of a seeded run: a hash of the run's seed and a name, so every actor draws
 * from its own stream and adding an actor does not shift what the others draw (docs/scenarios.md, "Seeds").
 */
export function deriveSeed(seed: number | string, name: string): Hex {
  return keccak256(toHex(`gensyn/seed/v1:${seed}:${name}`))
}
