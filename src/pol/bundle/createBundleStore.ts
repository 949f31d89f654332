import type {Hex} from 'viem'

import {canonicalJsonBytes} from '../../store/canonicalJson.js'
import {BlobIntegrityError, BlobNotFoundError} from '../../store/errors.js'
import {parseJsonBlob} from '../../store/parseJsonBlob.js'
import {sha256Hex} from '../../store/sha256.js'
import type {BlobStore} from '../../store/types.js'

/** One file of a bundle, by the path proof.json gives, with the reader that applies the bundle's rules to it. */
export type BundleFile = {file: string; read: () => Promise<Uint8Array>}

/**
 * A read-mostly BlobStore over a bundle's files, named by the sha256 that proof.json claims for them.
 * Every read goes through the bundle's reader again (regular files only, size-capped) and re-hashes the
 * file, so a file whose bytes differ from its claim fails like a corrupt blob.
 * Blobs put into it (the derived manifest, a report) live in memory only: a bundle is never modified.
 */
export function createBundleStore(files: ReadonlyMap<Hex, BundleFile>): BlobStore {
  const added = new Map<Hex, Uint8Array>()

  async function get(hash: Hex): Promise<Uint8Array> {
    const kept = added.get(hash)
    if (kept) return kept
    const entry = files.get(hash)
    if (!entry) throw new BlobNotFoundError(hash, 'the proof bundle')
    const bytes = await entry.read()
    const actual = sha256Hex(bytes)
    if (actual !== hash) throw new BlobIntegrityError(hash, actual, entry.file)
    return bytes
  }

  async function put(bytes: Uint8Array): Promise<Hex> {
    const hash = sha256Hex(bytes)
    added.set(hash, bytes)
    return hash
  }

  return {
    get,
    put,
    has: async (hash) => added.has(hash) || files.has(hash),
    putJson: (value) => put(canonicalJsonBytes(value)),
    getJson: async <T>(hash: Hex): Promise<T> => parseJsonBlob<T>(hash, await get(hash)),
  }
}
