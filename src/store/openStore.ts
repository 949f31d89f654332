import path from 'node:path'

import {createHttpStore, isStoreUrl} from './createHttpStore.js'
import {createLocalStore} from './createLocalStore.js'
import type {BlobStore} from './types.js'

export type OpenStoreOptions = {
  /** Upload token of a `gensyn store serve` server; a local folder needs none and ignores it. */
  token?: string | undefined
}

/**
 * The store a `--store` value names: an http(s):// URL is a `gensyn store serve` server, anything else a
 * local folder. `location` is what the store is known by in messages (the URL, or the absolute folder).
 */
export function openStore(value: string, options: OpenStoreOptions = {}): {store: BlobStore; location: string; dir: string | undefined} {
  if (isStoreUrl(value)) return {store: createHttpStore(value, {token: options.token}), location: value, dir: undefined}
  const dir = path.resolve(value)
  return {store: createLocalStore(dir), location: dir, dir}
}
