import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

import type {Hex} from 'viem'

import {BaseError} from '../errors/base.js'
import {createLocalStore} from './createLocalStore.js'
import {BlobIntegrityError, BlobNotFoundError} from './errors.js'
import {sha256Hex} from './sha256.js'

export type ServeStoreOptions = {
  /** The local store folder served (created if missing). */
  dir: string
  /** 0 (the default) picks a free port. */
  port?: number | undefined
  /** Interface to bind. Default 127.0.0.1: nothing beyond this machine sees it unless asked. */
  host?: string | undefined
  /** Largest PUT body accepted, in bytes (default 1 GiB). */
  maxBlobBytes?: number | undefined
  /** Called once per request when its response has been sent. */
  onRequest?: ((entry: StoreRequestLog) => void) | undefined
}

export type StoreRequestLog = {method: string; path: string; status: number; bytes: number; ms: number}

export type StoreServer = {
  /** `http://host:port`, what clients pass as --store. */
  url: string
  port: number
  host: string
  dir: string
  close(): Promise<void>
}

/** The server could not listen (port taken, address not on this machine). */
export class StoreServeError extends BaseError {
  override name = 'StoreServeError'
}

const blobPath = /^\/blobs\/([0-9a-f]{64})$/

/**
 * Serves a local blob store over HTTP for actors on other machines (docs/multi-host.md):
 *
 *     GET  /blobs/<sha256 hex>   200 the bytes | 404
 *     HEAD /blobs/<sha256 hex>   200 (content-length) | 404
 *     PUT  /blobs/<sha256 hex>   201 stored | 400 the body does not hash to the name | 413 too large
 *     GET  /                     200 {"service":"gensyn-store"}: a readiness probe
 *
 * A PUT is checked against its name before it is stored, so the store only ever holds blobs that are what
 * they claim; a blob that rotted on disk is answered 500, never served (clients check every read anyway).
 * Writes go through {@link createLocalStore} (atomic rename): concurrent uploads of one blob are harmless.
 */
export async function serveStore(options: ServeStoreOptions): Promise<StoreServer> {
  const store = createLocalStore(options.dir)
  const maxBlobBytes = options.maxBlobBytes ?? 1024 ** 3
  const host = options.host ?? '127.0.0.1'

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<number> {
    const path = new URL(request.url ?? '/', 'http://store').pathname
    const send = (status: number, body: string | Uint8Array = '', type = 'text/plain; charset=utf-8'): number => {
      const bytes = typeof body === 'string' ? Buffer.from(body === '' ? body : `${body}\n`) : body
      response.writeHead(status, {'content-type': type, 'content-length': bytes.byteLength})
      response.end(request.method === 'HEAD' ? undefined : bytes)
      return bytes.byteLength
    }
    if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) return send(200, JSON.stringify({service: 'gensyn-store'}), 'application/json')
    const match = blobPath.exec(path)
    if (!match) {
      drain(request)
      return path.startsWith('/blobs/') ? send(400, 'expected /blobs/<sha256 as 64 lowercase hex digits>') : send(404, 'not found')
    }
    const hash = `0x${match[1]}` as Hex
    switch (request.method) {
      case 'GET':
      case 'HEAD':
        try {
          return send(200, await store.get(hash), 'application/octet-stream')
        } catch (error) {
          if (error instanceof BlobNotFoundError) return send(404, `no blob ${hash}`)
          if (error instanceof BlobIntegrityError) return send(500, `blob ${hash} is corrupt on the server; PUT it again to repair it`)
          throw error
        }
      case 'PUT': {
        const declared = Number(request.headers['content-length'] ?? 0)
        if (declared > maxBlobBytes) {
          drain(request)
          return send(413, `blob larger than ${maxBlobBytes} bytes`)
        }
        const body = await readBody(request, maxBlobBytes)
        if (body === undefined) return send(413, `blob larger than ${maxBlobBytes} bytes`)
        const actual = sha256Hex(body)
        if (actual !== hash) return send(400, `body sha256 ${actual} does not match the name ${hash}`)
        await store.put(body)
        return send(201)
      }
      default:
        drain(request)
        response.setHeader('allow', 'GET, HEAD, PUT')
        return send(405, `method ${request.method ?? '?'} not allowed: GET, HEAD or PUT`)
    }
  }

  const server = createServer((request, response) => {
    const started = performance.now()
    handle(request, response)
      .catch((error: unknown) => {
        // A disk error: the client sees a 500 (and retries nothing); the message names the cause.
        if (!response.headersSent) {
          const text = Buffer.from(`${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`)
          response.writeHead(500, {'content-type': 'text/plain; charset=utf-8', 'content-length': text.byteLength})
          response.end(text)
          return text.byteLength
        }
        response.destroy()
        return 0
      })
      .then((bytes) => {
        options.onRequest?.({method: request.method ?? '?', path: request.url ?? '/', status: response.statusCode, bytes, ms: Math.round(performance.now() - started)})
      })
  })
  // A slow client may take its time over a large checkpoint, but not hold a socket forever.
  server.requestTimeout = 10 * 60_000

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new StoreServeError(`--port: cannot listen on ${host}:${options.port ?? 0} (${error.code ?? error.message})`, {cause: error})),
    )
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const {port} = server.address() as AddressInfo
  const urlHost = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    dir: options.dir,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The whole body, or undefined once it passes `limit` bytes (the rest is discarded). */
function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    request.on('data', (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > limit) tooLarge = true
      if (!tooLarge) chunks.push(chunk)
    })
    request.on('end', () => {
      if (tooLarge) return resolve(undefined)
      const buffer = Buffer.concat(chunks)
      resolve(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))
    })
    request.on('error', reject)
  })
}

/** Reads and drops a body we answer without, so keep-alive connections stay usable. */
function drain(request: IncomingMessage): void {
  request.resume()
}
