import {type Hex, toHex} from 'viem'

/** 32 bytes drawn from `random` (a seeded stream), as hex: a secret that a replay of the run draws again. */
export function randomHex(random: () => number): Hex {
  return toHex(Uint8Array.from({length: 32}, () => Math.floor(random() * 256)))
}
