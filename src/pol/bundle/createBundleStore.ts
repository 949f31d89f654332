import {readFile} from 'node:fs/promises'

import type {Hex} from 'viem'

import {canonicalJsonBytes} from '../../store/canonicalJson.js'
import {BlobIntegrityError, BlobJsonError, BlobNotFoundError} from '../../store/errors.js'
import {sha256Hex} from '../../store/sha256.js'
import type {BlobStore} from '../../store/types.js'

/**
 * A read-mostly BlobStore over a bundle's files, named by the sha256 that proof.json claims for them.
 * Every read re-hashes the file, so a file whose bytes differ from its claim fails like a corrupt blob.
 * Blobs put into it (the derived manifest, a report) live in memory only: a bundle is never modified.
 */
export function createBundleStore(files: ReadonlyMap<Hex, string>): BlobStore {
  const added = new Map<Hex, Uint8Array>()

  async function get(hash: Hex): Promise<Uint8Array> {
    const kept = added.get(hash)
    if (kept) return kept
    const file = files.get(hash)
    if (!file) throw new BlobNotFoundError(hash, 'the proof bundle')
    const bytes = new Uint8Array(await readFile(file))
    const actual = sha256Hex(bytes)
    if (actual !== hash) throw new BlobIntegrityError(hash, actual, file)
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
    async getJson<T>(hash: Hex): Promise<T> {
      try {
        return JSON.parse(new TextDecoder().decode(await get(hash))) as T
      } catch (error) {
        if (error instanceof SyntaxError) throw new BlobJsonError(`blob ${hash}: expected JSON, got unparsable bytes`)
        throw error
      }
    },
  }
}
