import type {Stats} from 'node:fs'

import type {Hex} from 'viem'

/** Which stored files are known to hash to their names, so each is re-hashed only once (see sendBlob). */
export type VerifiedBlobs = {
  /** True when `hash` was verified and the file is still the very same one (inode, size, mtime). */
  has(hash: Hex, stats: Stats): boolean
  remember(hash: Hex, stats: Stats): void
  forget(hash: Hex): void
}

/**
 * A bounded memory of verified files. A file is known by its device, inode, size and modification time: a
 * blob replaced by a rename gets a new inode, and one written in place a new mtime, so either is verified
 * again. Oldest entries go first once `capacity` is reached (about 150 bytes each).
 */
export function createVerifiedBlobs(capacity = 100_000): VerifiedBlobs {
  const known = new Map<Hex, string>()
  const identity = (stats: Stats) => `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`
  return {
    has: (hash, stats) => known.get(hash) === identity(stats),
    remember(hash, stats) {
      known.delete(hash)
      known.set(hash, identity(stats))
      if (known.size > capacity) known.delete(known.keys().next().value as Hex)
    },
    forget: (hash) => known.delete(hash),
  }
}
