import {mkdir, rm, stat} from 'node:fs/promises'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join, resolve} from 'node:path'

import type {Hex} from 'viem'

import {BaseError} from '../errors/base.js'
import {bearerTokenMatches} from './bearerTokenMatches.js'
import {blobPath} from './blobPath.js'
import {commitBlob} from './commitBlob.js'
import {createUploadGate, type UploadGate} from './createUploadGate.js'
import {createVerifiedBlobs, type VerifiedBlobs} from './createVerifiedBlobs.js'
import {StoreRequestRejectedError} from './errors.js'
import {receiveBlob} from './receiveBlob.js'
import {sendBlob} from './sendBlob.js'
import {storedBytes} from './storedBytes.js'

export type ServeStoreOptions = {
  /** The local store folder served (created if missing). */
  dir: string
  /** 0 (the default) picks a free port. */
  port?: number | undefined
  /** Interface to bind. Default 127.0.0.1: nothing beyond this machine sees it unless asked. */
  host?: string | undefined
  /**
   * The secret a PUT must carry as `authorization: Bearer <token>`. Without one the server is read-only:
   * every PUT is answered 401. Reads (GET, HEAD) never need it: blobs are named by their hash.
   */
  token?: string | undefined
  /** Largest PUT body accepted, in bytes (default 1 GiB); larger ones are answered 413. */
  maxBlobBytes?: number | undefined
  /** Uploads received at once (default 32: each costs a file and a few stream buffers, not its size); one more is answered 429 with `retry-after`. */
  maxUploads?: number | undefined
  /** Bytes the store may hold, what it held at start included (default: no limit but the disk); past it, 507. */
  maxStoreBytes?: number | undefined
  /** Connections held at once (default 1024); further ones are refused until one closes. */
  maxConnections?: number | undefined
  /** fsync each blob before it is renamed into place (default true). */
  fsync?: boolean | undefined
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
  /** Bytes of blobs in the store now. */
  storedBytes(): number
  /** Uploads being received now. */
  activeUploads(): number
  close(): Promise<void>
}

/** The server could not listen (port taken, address not on this machine). */
export class StoreServeError extends BaseError {
  override name = 'StoreServeError'
}

const blobRoute = /^\/blobs\/([0-9a-f]{64})$/

/**
 * Serves a local blob store over HTTP for actors on other machines (docs/multi-host.md):
 *
 *     GET  /blobs/<sha256 hex>   200 the bytes | 404 | 500 the copy on disk is corrupt (never served)
 *     HEAD /blobs/<sha256 hex>   200 (content-length) | 404 | 500
 *     PUT  /blobs/<sha256 hex>   201 stored | 400 the body does not hash to the name | 401 no or a wrong token
 *                                | 413 too large | 429 too many uploads at once | 507 the store is full
 *     GET  /                     200 {"service":"gensyn-store"}: a readiness probe
 *
 * Bodies stream in both directions: a PUT goes to a temporary file in the store folder while it is hashed
 * and is renamed into place only if it hashes to its name, and a GET streams the file. Memory stays at a
 * few stream buffers per connection whatever the size and number of blobs (docs/reliability.md).
 */
export async function serveStore(options: ServeStoreOptions): Promise<StoreServer> {
  const root = resolve(options.dir)
  const host = options.host ?? '127.0.0.1'
  const maxBlobBytes = options.maxBlobBytes ?? 1024 ** 3
  // Fails here, in one line naming the flag, rather than on the first upload.
  await mkdir(join(root, 'tmp'), {recursive: true}).catch((error: NodeJS.ErrnoException) => {
    throw new StoreServeError(`--dir: expected a folder the server can write, ${root} gives ${error.code ?? error.message}`, {cause: error})
  })
  const gate = createUploadGate({maxUploads: options.maxUploads ?? 32, maxStoreBytes: options.maxStoreBytes, storedBytes: await storedBytes(root)})
  const context: RouteContext = {root, token: options.token, maxBlobBytes, gate, verified: createVerifiedBlobs(), fsync: options.fsync ?? true}

  const server = createServer((request, response) => {
    const started = performance.now()
    route(context, request, response)
      .catch((error: unknown) => answerFailure(request, response, error))
      .then((bytes) => {
        options.onRequest?.({method: request.method ?? '?', path: request.url ?? '/', status: response.statusCode, bytes, ms: Math.round(performance.now() - started)})
      })
  })
  // A slow client may take its time over a large checkpoint, but not hold a socket forever, nor sit on one
  // silently: a minute without a byte either way closes it.
  server.requestTimeout = 10 * 60_000
  server.setTimeout(60_000)
  server.maxConnections = options.maxConnections ?? 1024

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
    storedBytes: () => gate.storedBytes(),
    activeUploads: () => gate.activeUploads(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

type RouteContext = {root: string; token: string | undefined; maxBlobBytes: number; gate: UploadGate; verified: VerifiedBlobs; fsync: boolean}

/** Answers one request; returns the body bytes sent. Refusals are thrown as StoreRequestRejectedError. */
async function route(context: RouteContext, request: IncomingMessage, response: ServerResponse): Promise<number> {
  const path = pathOf(request)
  if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) return send(request, response, 200, JSON.stringify({service: 'gensyn-store'}), 'application/json')
  const match = path === undefined ? null : blobRoute.exec(path)
  if (!match) {
    request.resume()
    return path?.startsWith('/blobs/') ? send(request, response, 400, 'expected /blobs/<sha256 as 64 lowercase hex digits>') : send(request, response, 404, 'not found')
  }
  const hash = `0x${match[1]}` as Hex
  const file = blobPath(context.root, hash)
  switch (request.method) {
    case 'GET':
    case 'HEAD':
      request.resume()
      return sendBlob(request, response, {path: file, hash, verified: context.verified})
    case 'PUT':
      await acceptUpload(context, request, hash, file)
      return send(request, response, 201)
    default:
      request.resume()
      response.setHeader('allow', 'GET, HEAD, PUT')
      return send(request, response, 405, `method ${request.method ?? '?'} not allowed: GET, HEAD or PUT`)
  }
}

/** Checks the token and the limits before a byte is read, then streams the body in and commits it. */
async function acceptUpload(context: RouteContext, request: IncomingMessage, hash: Hex, file: string): Promise<void> {
  if (context.token === undefined) throw new StoreRequestRejectedError(401, 'this store server takes no uploads: it was started without --token')
  if (!bearerTokenMatches(request.headers.authorization, context.token)) {
    throw new StoreRequestRejectedError(401, 'uploads need the store token: send authorization: Bearer <token> (actors: --store-token or GENSYN_STORE_TOKEN)')
  }
  const declared = request.headers['content-length'] === undefined ? undefined : Number(request.headers['content-length'])
  if (declared !== undefined && declared > context.maxBlobBytes) throw new StoreRequestRejectedError(413, `blob larger than ${context.maxBlobBytes} bytes (store serve --max-blob-mb)`)
  const storedSize = await sizeOf(file)
  const ticket = context.gate.admit(declared, storedSize !== undefined && storedSize === declared)
  try {
    const received = await receiveBlob(request, {tmpDir: join(context.root, 'tmp'), maxBytes: context.maxBlobBytes, onChunk: ticket.received, fsync: context.fsync})
    if (received.hash !== hash) {
      await rm(received.tmpPath, {force: true})
      throw new StoreRequestRejectedError(400, `body sha256 ${received.hash} does not match the name ${hash}`)
    }
    ticket.finish(await commitBlob(received, file))
    // Hashed as it arrived: the first GET need not read it again.
    context.verified.remember(hash, await stat(file))
  } finally {
    ticket.release()
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  return stat(file).then(
    (stats) => stats.size,
    () => undefined,
  )
}

/** The request's path, or undefined when its target does not parse as a URL path. */
function pathOf(request: IncomingMessage): string | undefined {
  try {
    return new URL(request.url ?? '/', 'http://store').pathname
  } catch {
    return undefined
  }
}

function send(request: IncomingMessage, response: ServerResponse, status: number, body = '', type = 'text/plain; charset=utf-8'): number {
  const bytes = Buffer.from(body === '' ? body : `${body}\n`)
  response.writeHead(status, {'content-type': type, 'content-length': bytes.byteLength})
  response.end(request.method === 'HEAD' ? undefined : bytes)
  return request.method === 'HEAD' ? 0 : bytes.byteLength
}

/**
 * A refusal becomes its status and one line; any other error is a disk error, a 500 naming it. Once the
 * headers are out (a GET cut short) the only honest answer left is to drop the connection, and a client
 * that is gone gets nothing: its request is logged as 499 (nginx's "client closed request"), never sent.
 */
function answerFailure(request: IncomingMessage, response: ServerResponse, error: unknown): number {
  if (response.headersSent || request.socket.destroyed) {
    if (!response.headersSent) response.statusCode = 499
    response.destroy()
    return 0
  }
  const status = error instanceof StoreRequestRejectedError ? error.status : 500
  const message = error instanceof BaseError ? error.shortMessage : error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
  if (error instanceof StoreRequestRejectedError && error.retryAfterSeconds !== undefined) response.setHeader('retry-after', String(error.retryAfterSeconds))
  if (!request.complete) lingerThenClose(request)
  return send(request, response, status, message)
}

/** Bytes and seconds a refused upload's remaining body is read and dropped for before its connection is cut. */
const lingerBytes = 8 * 1024 ** 2
const lingerMs = 10_000

/**
 * After refusing an upload whose body is still coming, reads and drops the rest (up to 8 MiB or 10 s), then
 * cuts the connection. Closing at once would make the kernel reset a socket with unread bytes, and many
 * clients lose the answer in that reset; reading on without a bound would let one refused client send a
 * gigabyte into a server that said no. Past the bound, the client gets the reset.
 */
function lingerThenClose(request: IncomingMessage): void {
  let drained = 0
  const cut = () => request.socket.destroy()
  const timer = setTimeout(cut, lingerMs)
  timer.unref()
  request.on('data', (chunk: Buffer) => {
    drained += chunk.byteLength
    if (drained > lingerBytes) cut()
  })
  request.once('end', () => clearTimeout(timer))
  request.once('close', () => clearTimeout(timer))
  request.resume()
}
