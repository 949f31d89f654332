import {randomBytes} from 'node:crypto'
import {readFile, stat} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import type {Hex} from 'viem'
import {blobPath} from './blobPath.js'
import {canonicalJsonBytes} from './canonicalJson.js'
import {BlobIntegrityError, BlobNotFoundError, InvalidHashError} from './errors.js'
import {parseJsonBlob} from './parseJsonBlob.js'
import {isHash, sha256Hex} from './sha256.js'
import type {BlobStore} from './types.js'
import {writeFileDurably} from './writeFileDurably.js'

export type LocalStoreOptions = {
  /** fsync each blob before it is renamed into place (default true): a power cut cannot leave a torn blob. */
  fsync?: boolean
}

/**
 * A blob store in a local folder, safe to share between processes:
 *
 *     <dir>/sha256/<first 2 hex digits>/<remaining 62 hex digits>   the blobs
 *     <dir>/tmp/                                                    in-flight writes
 *
 * `put` writes to a uniquely named file under tmp/, fsyncs it, then renames it over the final path
 * (atomic on POSIX within one file system): readers see either no blob or the whole blob, and two
 * processes writing the same blob race harmlessly (same bytes). A crash leaves at most a stray tmp file.
 * `get` re-hashes every read; `put` of a blob whose stored copy is corrupt rewrites it.
 */
export function createLocalStore(dir: string, options: LocalStoreOptions = {}): BlobStore {
  const root = resolve(dir)
  const fsync = options.fsync ?? true
  const pathOf = (hash: Hex) => blobPath(root, hash)
  const checked = (hash: Hex): Hex => {
    if (!isHash(hash)) throw new InvalidHashError(hash)
    return hash
  }

  const exists = async (path: string) => {
    try {
      return (await stat(path)).isFile()
    } catch {
      return false
    }
  }

  async function put(bytes: Uint8Array): Promise<Hex> {
    const hash = sha256Hex(bytes)
    const path = pathOf(hash)
    const tmp = join(root, 'tmp', `${hash.slice(2, 18)}.${process.pid}.${randomBytes(6).toString('hex')}`)
    // Posted to the writer thread before the first await: a caller that goes on computing (a trainer) overlaps it.
    // An intact stored copy is kept; a corrupt one is rewritten.
    await writeFileDurably(tmp, path, bytes, {unlessSha256: hash.slice(2), fsync})
    return hash
  }

  async function get(hash: Hex): Promise<Uint8Array> {
    const path = pathOf(checked(hash))
    let buffer: Buffer
    try {
      buffer = await readFile(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(hash, root)
      throw error
    }
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    const actual = sha256Hex(bytes)
    if (actual !== hash) throw new BlobIntegrityError(hash, actual, path)
    return bytes
  }

  return {
    put,
    get,
    has: async (hash) => exists(pathOf(checked(hash))),
    putJson: (value) => put(canonicalJsonBytes(value)),
    getJson: async <T>(hash: Hex): Promise<T> => parseJsonBlob<T>(hash, await get(hash)),
  }
}
