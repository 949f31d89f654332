import assert from 'node:assert/strict'
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {request as httpRequest} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {createLocalStore, serveStore, type ServeStoreOptions, sha256Hex, type StoreRequestLog, type StoreServer} from './index.js'

const token = 'a-test-token-of-32-characters-ok'
const auth = {authorization: `Bearer ${token}`}

describe('serveStore (a real HTTP server over a local store)', () => {
  let dir: string
  let server: StoreServer
  const logged: StoreRequestLog[] = []
  const extra: StoreServer[] = []

  const start = (options: Partial<ServeStoreOptions> = {}) => serveStore({dir, token, maxBlobBytes: 4096, onRequest: (entry) => logged.push(entry), ...options})
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-serve-'))
    logged.length = 0
    server = await start()
  })
  afterEach(async () => {
    await Promise.all([server, ...extra.splice(0)].map((each) => each.close()))
    await rm(dir, {recursive: true, force: true})
  })

  const blobUrl = (hash: string, on = server) => `${on.url}/blobs/${hash.slice(2)}`
  const bytesOf = (text: string) => new TextEncoder().encode(text)
  const leftovers = async () => (await readdir(join(dir, 'tmp')).catch(() => [])).length

  it('stores a PUT with the token whose body hashes to its name, and serves it back with GET and HEAD', async () => {
    const bytes = bytesOf('a checkpoint, say')
    const hash = sha256Hex(bytes)
    const put = await fetch(blobUrl(hash), {method: 'PUT', body: bytes, headers: auth})
    assert.equal(put.status, 201)
    assert.deepEqual(await createLocalStore(dir).get(hash), bytes, 'written into the served folder')
    const get = await fetch(blobUrl(hash))
    assert.equal(get.status, 200)
    assert.equal(get.headers.get('content-type'), 'application/octet-stream')
    assert.deepEqual(new Uint8Array(await get.arrayBuffer()), bytes)
    const head = await fetch(blobUrl(hash), {method: 'HEAD'})
    assert.equal(head.status, 200)
    assert.equal(head.headers.get('content-length'), String(bytes.byteLength))
    assert.equal((await fetch(blobUrl(hash), {method: 'PUT', body: bytes, headers: auth})).status, 201, 'idempotent')
    assert.equal(server.storedBytes(), bytes.byteLength, 'stored once')
    assert.deepEqual(
      logged.map((entry) => `${entry.method} ${entry.status}`),
      ['PUT 201', 'GET 200', 'HEAD 200', 'PUT 201'],
    )
    assert.equal(await leftovers(), 0)
  })

  it('refuses a PUT without the token, with a wrong one, or on a server started without one (401); reads stay open', async () => {
    const bytes = bytesOf('an upload from a stranger')
    const hash = sha256Hex(bytes)
    for (const headers of [{} as Record<string, string>, {authorization: 'Bearer not-the-token-at-all-no'}, {authorization: token}, {authorization: `Basic ${token}`}]) {
      const response = await fetch(blobUrl(hash), {method: 'PUT', body: bytes, headers})
      assert.equal(response.status, 401, JSON.stringify(headers))
      assert.match(await response.text(), /^uploads need the store token: send authorization: Bearer <token>/)
    }
    const readOnly = await start({token: undefined})
    extra.push(readOnly)
    const refused = await fetch(blobUrl(hash, readOnly), {method: 'PUT', body: bytes, headers: auth})
    assert.equal(refused.status, 401)
    assert.equal(await refused.text(), 'this store server takes no uploads: it was started without --token\n')
    assert.equal(await createLocalStore(dir).has(hash), false, 'nothing stored')
    await createLocalStore(dir).put(bytes)
    assert.equal((await fetch(blobUrl(hash))).status, 200, 'GET needs no token')
    assert.equal((await fetch(blobUrl(hash, readOnly), {method: 'HEAD'})).status, 200, 'HEAD needs no token')
  })

  it('refuses a PUT whose body does not hash to its name with 400, and leaves nothing behind', async () => {
    const claimed = sha256Hex(bytesOf('what the name promises'))
    const response = await fetch(blobUrl(claimed), {method: 'PUT', body: bytesOf('something else'), headers: auth})
    assert.equal(response.status, 400)
    assert.match(await response.text(), new RegExp(`does not match the name ${claimed}`))
    assert.equal(await createLocalStore(dir).has(claimed), false)
    assert.equal((await fetch(blobUrl(claimed))).status, 404)
    assert.equal(await leftovers(), 0, 'no temporary file left')
    assert.equal(server.storedBytes(), 0)
  })

  it('answers 404 for a missing blob, 400 for a malformed name, 405 for other methods and 413 past the size limit', async () => {
    const missing = sha256Hex(new Uint8Array([9]))
    assert.equal((await fetch(blobUrl(missing))).status, 404)
    assert.equal((await fetch(blobUrl(missing), {method: 'HEAD'})).status, 404)
    assert.equal((await fetch(`${server.url}/blobs/${missing.slice(2).toUpperCase()}`)).status, 400)
    assert.equal((await fetch(`${server.url}/blobs/1234`)).status, 400)
    assert.equal((await fetch(`${server.url}/elsewhere`)).status, 404)
    const remove = await fetch(blobUrl(missing), {method: 'DELETE'})
    assert.equal(remove.status, 405)
    assert.equal(remove.headers.get('allow'), 'GET, HEAD, PUT')
    const big = new Uint8Array(5000).fill(1)
    const tooLarge = await fetch(blobUrl(sha256Hex(big)), {method: 'PUT', body: big, headers: auth})
    assert.equal(tooLarge.status, 413)
    assert.equal(await tooLarge.text(), 'blob larger than 4096 bytes (store serve --max-blob-mb)\n')
    const probe = await fetch(`${server.url}/`)
    assert.deepEqual(await probe.json(), {service: 'gensyn-store'})
  })

  it('stops a chunked upload (no content-length) at the size limit with 413 and removes its temporary file', async () => {
    const chunk = new Uint8Array(1024).fill(7)
    const answer = await putStreamed(blobUrl(sha256Hex(new Uint8Array(8192).fill(7))), {headers: auth, chunks: Array.from({length: 8}, () => chunk)})
    assert.equal(answer.status, 413)
    assert.equal(await leftovers(), 0)
    assert.equal(server.storedBytes(), 0)
  })

  it('answers 429 with retry-after past --max-uploads at once, and takes the upload once a slot is free', async () => {
    const limited = await start({maxUploads: 2})
    extra.push(limited)
    const bytes = new Uint8Array(2000).map((_, i) => i % 256)
    const hash = sha256Hex(bytes)
    // Two slow clients: each sends its headers and a first part, then stalls with its slot taken.
    const slow = [0, 1].map(() => slowPut(blobUrl(hash, limited), bytes, auth))
    await until(() => limited.activeUploads() === 2)
    const refused = await fetch(blobUrl(hash, limited), {method: 'PUT', body: bytes, headers: auth})
    assert.equal(refused.status, 429)
    assert.equal(refused.headers.get('retry-after'), '1')
    assert.match(await refused.text(), /^too many uploads at once \(the limit is 2, store serve --max-uploads\)/)
    for (const client of slow) client.finish()
    assert.deepEqual(await Promise.all(slow.map((client) => client.status)), [201, 201], 'the stalled uploads complete, of one blob, harmlessly')
    assert.equal((await fetch(blobUrl(hash, limited), {method: 'PUT', body: bytes, headers: auth})).status, 201)
    assert.equal(limited.storedBytes(), 2000)
    assert.equal(await leftovers(), 0)
  })

  it('answers 507 once --max-store-mb would be passed, counting the blobs there at start, yet takes a re-upload of a stored blob', async () => {
    const first = new Uint8Array(600).fill(1)
    assert.equal((await fetch(blobUrl(sha256Hex(first)), {method: 'PUT', body: first, headers: auth})).status, 201)
    await server.close()
    server = await start({maxStoreBytes: 1000})
    assert.equal(server.storedBytes(), 600, 'counted what the folder held')
    const second = new Uint8Array(500).fill(2)
    const full = await fetch(blobUrl(sha256Hex(second)), {method: 'PUT', body: second, headers: auth})
    assert.equal(full.status, 507)
    assert.match(await full.text(), /^the store is full: it holds 600 bytes \(0 more in flight\) of its 1000 byte limit \(store serve --max-store-mb\)$/m)
    // Chunked, so no content-length tells in advance: stopped as the bytes arrive.
    const streamed = await putStreamed(blobUrl(sha256Hex(second)), {headers: auth, chunks: [second.subarray(0, 250), second.subarray(250)]})
    assert.equal(streamed.status, 507)
    assert.equal((await fetch(blobUrl(sha256Hex(first)), {method: 'PUT', body: first, headers: auth})).status, 201, 'idempotent re-put of a stored blob')
    const small = new Uint8Array(400).fill(3)
    assert.equal((await fetch(blobUrl(sha256Hex(small)), {method: 'PUT', body: small, headers: auth})).status, 201, 'what still fits')
    assert.equal(server.storedBytes(), 1000)
    assert.equal(await leftovers(), 0)
  })

  it('takes 20 concurrent uploads of one blob harmlessly: one copy, counted once, no temporary file left', async () => {
    const bytes = new Uint8Array(3000).map((_, i) => (i * 13) % 256)
    const hash = sha256Hex(bytes)
    const many = await start({maxUploads: 32})
    extra.push(many)
    const statuses = await Promise.all(Array.from({length: 20}, () => fetch(blobUrl(hash, many), {method: 'PUT', body: bytes, headers: auth}).then((response) => response.status)))
    assert.deepEqual(new Set(statuses), new Set([201]))
    assert.equal(many.storedBytes(), 3000)
    assert.deepEqual(await createLocalStore(dir).get(hash), bytes)
    assert.equal(await leftovers(), 0)
  })

  it('never serves a blob that rotted on its disk (500), and a PUT of the right bytes repairs it', async () => {
    const local = createLocalStore(dir)
    const bytes = new Uint8Array(1000).map((_, i) => i % 251)
    const hash = await local.put(bytes)
    assert.equal((await fetch(blobUrl(hash))).status, 200, 'verified on its first read')
    await writeFile(join(dir, 'sha256', hash.slice(2, 4), hash.slice(4)), bytes.subarray(0, 999))
    const get = await fetch(blobUrl(hash))
    assert.equal(get.status, 500, 'the changed file is verified again')
    assert.match(await get.text(), /corrupt on the server/)
    assert.equal((await fetch(blobUrl(hash), {method: 'HEAD'})).status, 500)
    assert.equal((await fetch(blobUrl(hash), {method: 'PUT', body: bytes, headers: auth})).status, 201)
    assert.deepEqual(new Uint8Array(await (await fetch(blobUrl(hash))).arrayBuffer()), bytes)
  })

  it('fails to listen on a port already taken, or to serve a file as its folder, with one line naming the flag', async () => {
    await assert.rejects(serveStore({dir, port: server.port}), /^StoreServeError: --port: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)$/m)
    const file = join(dir, 'a-file')
    await writeFile(file, 'not a folder')
    await assert.rejects(serveStore({dir: file}), /^StoreServeError: --dir: expected a folder the server can write, .*a-file gives ENOTDIR$/m)
  })
})

/** A PUT whose body goes out in the given chunks with chunked transfer encoding (no content-length). */
function putStreamed(url: string, options: {headers: Record<string, string>; chunks: Uint8Array[]}): Promise<{status: number; body: string}> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {method: 'PUT', headers: options.headers}, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (text: string) => (body += text))
      response.on('end', () => resolve({status: response.statusCode ?? 0, body}))
    })
    // The server may answer and close before the last chunk: that is the point, not a failure.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)))
    for (const chunk of options.chunks) request.write(chunk)
    request.end()
  })
}

/** A PUT that sends its headers and the first 100 bytes, then waits for `finish()` to send the rest. */
function slowPut(url: string, bytes: Uint8Array, headers: Record<string, string>): {status: Promise<number>; finish(): void} {
  let request: ReturnType<typeof httpRequest> | undefined
  const status = new Promise<number>((resolve, reject) => {
    request = httpRequest(url, {method: 'PUT', headers: {...headers, 'content-length': String(bytes.byteLength)}}, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', reject)
    request.write(bytes.subarray(0, 100))
  })
  return {status, finish: () => request?.end(bytes.subarray(100))}
}

/** Waits for a condition the server reaches on its own (no fixed delay to guess). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
}
