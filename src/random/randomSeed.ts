import {randomInt} from 'node:crypto'

/** The largest seed a run picks for itself: any integer up to it survives JSON and YAML unchanged. */
export const maxSeed = Number.MAX_SAFE_INTEGER

/** A fresh seed for a run started without one; the run records it, so it can be replayed with `--seed`. */
export function randomSeed(): number {
  // randomInt's range is below 2^48: plenty, and exact in a JSON number.
  return randomInt(0, 2 ** 48 - 1)
}
