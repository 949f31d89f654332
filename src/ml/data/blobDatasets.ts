import type {Hex} from 'viem'

import type {BlobStore} from '../../store/types.js'

/**
 * A map that keeps only the `capacity` most recently used entries: a long-running worker meets many tasks' data
 * sets (44 MB each for MNIST-sized ones), and a session that already read one keeps its arrays.
 */
export class RecentCache<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) this.set(key, value)
    return value
  }

  set(key: K, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break
      this.entries.delete(oldest)
    }
  }
}

/**
 * Data sets this process holds by blob hash: registered by the submitter that made them, or fetched from the
 * store (which checks the hash) by loadTaskSpec; training and scoring read them synchronously with `require`.
 */
export class BlobDatasets<V> {
  private readonly loaded: RecentCache<Hex, V>

  constructor(
    capacity: number,
    private readonly decode: (bytes: Uint8Array) => V,
    private readonly notLoaded: (hash: Hex) => Error,
  ) {
    this.loaded = new RecentCache(capacity)
  }

  register(hash: Hex, value: V): void {
    this.loaded.set(hash, value)
  }

  async fetch(store: Pick<BlobStore, 'get'>, hash: Hex): Promise<V> {
    const value = this.loaded.get(hash) ?? this.decode(await store.get(hash))
    this.loaded.set(hash, value)
    return value
  }

  require(hash: Hex): V {
    const value = this.loaded.get(hash)
    if (value === undefined) throw this.notLoaded(hash)
    return value
  }
}
