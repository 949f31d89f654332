import assert from 'node:assert/strict'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {createLocalStore, serveStore, sha256Hex, type StoreRequestLog, type StoreServer} from './index.js'

describe('serveStore (a real HTTP server over a local store)', () => {
  let dir: string
  let server: StoreServer
  const logged: StoreRequestLog[] = []

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-serve-'))
    logged.length = 0
    server = await serveStore({dir, maxBlobBytes: 4096, onRequest: (entry) => logged.push(entry)})
  })
  afterEach(async () => {
    await server.close()
    await rm(dir, {recursive: true, force: true})
  })

  const blobUrl = (hash: string) => `${server.url}/blobs/${hash.slice(2)}`

  it('stores a PUT whose body hashes to its name, and serves it back with GET and HEAD', async () => {
    const bytes = new TextEncoder().encode('a checkpoint, say')
    const hash = sha256Hex(bytes)
    const put = await fetch(blobUrl(hash), {method: 'PUT', body: bytes})
    assert.equal(put.status, 201)
    assert.deepEqual(await createLocalStore(dir).get(hash), bytes, 'written into the served folder')
    const get = await fetch(blobUrl(hash))
    assert.equal(get.status, 200)
    assert.equal(get.headers.get('content-type'), 'application/octet-stream')
    assert.deepEqual(new Uint8Array(await get.arrayBuffer()), bytes)
    const head = await fetch(blobUrl(hash), {method: 'HEAD'})
    assert.equal(head.status, 200)
    assert.equal(head.headers.get('content-length'), String(bytes.byteLength))
    assert.equal((await fetch(blobUrl(hash), {method: 'PUT', body: bytes})).status, 201, 'idempotent')
    assert.deepEqual(
      logged.map((entry) => `${entry.method} ${entry.status}`),
      ['PUT 201', 'GET 200', 'HEAD 200', 'PUT 201'],
    )
  })

  it('refuses a PUT whose body does not hash to its name with 400, and stores nothing', async () => {
    const claimed = sha256Hex(new TextEncoder().encode('what the name promises'))
    const response = await fetch(blobUrl(claimed), {method: 'PUT', body: new TextEncoder().encode('something else')})
    assert.equal(response.status, 400)
    assert.match(await response.text(), new RegExp(`does not match the name ${claimed}`))
    assert.equal(await createLocalStore(dir).has(claimed), false)
    assert.equal((await fetch(blobUrl(claimed))).status, 404)
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
    assert.equal((await fetch(blobUrl(sha256Hex(big)), {method: 'PUT', body: big})).status, 413)
    const probe = await fetch(`${server.url}/`)
    assert.deepEqual(await probe.json(), {service: 'gensyn-store'})
  })

  it('never serves a blob that rotted on its disk (500), and a PUT of the right bytes repairs it', async () => {
    const local = createLocalStore(dir)
    const bytes = new Uint8Array(1000).map((_, i) => i % 251)
    const hash = await local.put(bytes)
    await writeFile(join(dir, 'sha256', hash.slice(2, 4), hash.slice(4)), bytes.subarray(0, 999))
    const get = await fetch(blobUrl(hash))
    assert.equal(get.status, 500)
    assert.match(await get.text(), /corrupt on the server/)
    assert.equal((await fetch(blobUrl(hash), {method: 'PUT', body: bytes})).status, 201)
    assert.deepEqual(new Uint8Array(await (await fetch(blobUrl(hash))).arrayBuffer()), bytes)
  })

  it('fails to listen on a port already taken with one line naming the port', async () => {
    await assert.rejects(serveStore({dir, port: server.port}), /^StoreServeError: --port: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)$/m)
  })
})
