import {createHash, randomBytes} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {mkdir, rm} from 'node:fs/promises'
import type {IncomingMessage} from 'node:http'
import {join} from 'node:path'
import {pipeline} from 'node:stream/promises'

import type {Hex} from 'viem'

import {StoreRequestRejectedError} from './errors.js'

export type ReceiveBlobOptions = {
  /** Folder for the temporary file (inside the store folder, so the final rename stays on one file system). */
  tmpDir: string
  /** Bytes past which the upload is refused with 413. */
  maxBytes: number
  /** Told of each chunk before it is written; may throw a rejection (507: the store is full) to stop the upload. */
  onChunk?: ((bytes: number) => void) | undefined
  /** fsync the file before handing it over (default true): a crash after the rename cannot leave a torn blob. */
  fsync?: boolean | undefined
}

/** A body written whole to a temporary file: the caller renames it into place or removes it. */
export type ReceivedBlob = {tmpPath: string; hash: Hex; size: number}

/**
 * Streams a request body into a new temporary file while hashing it, so memory stays at a few stream buffers
 * whatever the size: the body is never held whole. Backpressure from the disk slows the socket down. On any
 * failure (too large, the store full, the client gone, a disk error) the temporary file is removed before
 * the error is rethrown, so a refused upload leaves nothing behind.
 */
export async function receiveBlob(request: IncomingMessage, options: ReceiveBlobOptions): Promise<ReceivedBlob> {
  await mkdir(options.tmpDir, {recursive: true})
  const tmpPath = join(options.tmpDir, `upload-${process.pid}-${randomBytes(8).toString('hex')}`)
  const hash = createHash('sha256')
  let size = 0
  // flush: fsync before the file is closed, so the blob is on disk before it is renamed into place.
  const file = createWriteStream(tmpPath, {flags: 'wx', flush: options.fsync ?? true})
  try {
    await pipeline(
      // destroyOnReturn false: a refused body (too large, the store full) leaves the request open, so that
      // the refusal can still be answered on it; the caller drains what is left.
      async function* () {
        for await (const chunk of request.iterator({destroyOnReturn: false}) as AsyncIterable<Buffer>) {
          size += chunk.byteLength
          if (size > options.maxBytes) throw new StoreRequestRejectedError(413, `blob larger than ${options.maxBytes} bytes (store serve --max-blob-mb)`)
          options.onChunk?.(chunk.byteLength)
          hash.update(chunk)
          yield chunk
        }
      },
      file,
    )
  } catch (error) {
    // A body refused at once can fail the pipeline while the file's open is still pending: the stream opens the
    // file, then closes it. Removed before then, it would be created afterwards and left behind.
    if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()))
    await rm(tmpPath, {force: true})
    throw diskFull(error) ? new StoreRequestRejectedError(507, 'the store\'s disk is full', undefined) : error
  }
  return {tmpPath, hash: `0x${hash.digest('hex')}`, size}
}

function diskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOSPC' || code === 'EDQUOT'
}
