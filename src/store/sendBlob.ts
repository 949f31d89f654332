import {createHash} from 'node:crypto'
import {open, type FileHandle} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {pipeline} from 'node:stream/promises'

import type {Hex} from 'viem'

import type {VerifiedBlobs} from './createVerifiedBlobs.js'
import {StoreRequestRejectedError} from './errors.js'

/**
 * Answers GET (or HEAD) for one blob by streaming its file: memory stays at a stream buffer however large the
 * blob, and a slow reader only slows its own stream down. Returns the bytes sent.
 *
 * A blob is never served unless its file hashes to its name. The file is hashed before the first byte goes
 * out, once per file (`verified` remembers it, and blobs this server wrote were hashed as they arrived).
 * Hashing while streaming instead would read each blob once, but could only discover a corrupt blob after
 * most of it was sent, and could then only cut the connection: the client would see a network failure and
 * retry, where a 500 before any byte says plainly what is wrong. The file is opened once and both the check
 * and the answer read that one descriptor, so a blob replaced between them cannot slip through unchecked.
 */
export async function sendBlob(request: IncomingMessage, response: ServerResponse, file: {path: string; hash: Hex; verified: VerifiedBlobs}): Promise<number> {
  let handle: FileHandle
  try {
    handle = await open(file.path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new StoreRequestRejectedError(404, `no blob ${file.hash}`)
    throw error
  }
  try {
    const stats = await handle.stat()
    if (!file.verified.has(file.hash, stats)) {
      const actual = await hashOf(handle)
      if (actual !== file.hash) {
        file.verified.forget(file.hash)
        throw new StoreRequestRejectedError(500, `blob ${file.hash} is corrupt on the server; PUT it again to repair it`)
      }
      file.verified.remember(file.hash, stats)
    }
    response.writeHead(200, {'content-type': 'application/octet-stream', 'content-length': stats.size})
    if (request.method === 'HEAD') {
      response.end()
      return 0
    }
    // The stream closes the handle when it ends or is destroyed (a client gone mid-blob).
    await pipeline(handle.createReadStream({start: 0}), response)
    return stats.size
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** Positional reads through one buffer: a stream here would keep the handle referenced, and close() waiting. */
async function hashOf(handle: FileHandle): Promise<Hex> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(256 * 1024)
  for (let position = 0; ; ) {
    const {bytesRead} = await handle.read(buffer, 0, buffer.byteLength, position)
    if (bytesRead === 0) break
    hash.update(buffer.subarray(0, bytesRead))
    position += bytesRead
  }
  return `0x${hash.digest('hex')}`
}
