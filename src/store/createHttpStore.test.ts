import assert from 'node:assert/strict'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {InvalidInputError} from '../errors/base.js'
import {
  BlobIntegrityError,
  BlobNotFoundError,
  BlobStoreHttpError,
  BlobStoreUnreachableError,
  createHttpStore,
  createLocalStore,
  serveStore,
  sha256Hex,
  type StoreServer,
} from './index.js'

describe('createHttpStore (against a real gensyn store server)', () => {
  let dir: string
  let server: StoreServer

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-http-store-'))
    server = await serveStore({dir})
  })
  afterEach(async () => {
    await server.close()
    await rm(dir, {recursive: true, force: true})
  })

  it('puts and gets bytes and canonical JSON, which land in the served folder', async () => {
    const store = createHttpStore(server.url)
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256)
    const hash = await store.put(bytes)
    assert.equal(hash, sha256Hex(bytes))
    assert.ok(await store.has(hash))
    assert.deepEqual(await store.get(hash), bytes)
    const json = await store.putJson({b: 1, a: [1, 2]})
    assert.equal(json, await createLocalStore(dir).putJson({a: [1, 2], b: 1}), 'the same hash as a local store gives')
    assert.deepEqual(await store.getJson(json), {a: [1, 2], b: 1})
    assert.deepEqual(await createLocalStore(dir).get(hash), bytes, 'stored on the server under its hash')
  })

  it('accepts a URL with a path prefix and a trailing slash', async () => {
    // A prefix the server does not know: the client must still build <prefix>/blobs/<hex>, and get a 404 there.
    const store = createHttpStore(`${server.url}/`)
    assert.deepEqual(await store.get(await store.put(new Uint8Array([1, 2, 3]))), new Uint8Array([1, 2, 3]))
    await assert.rejects(createHttpStore(`${server.url}/prefix`).get(sha256Hex(new Uint8Array([1, 2, 3]))), BlobNotFoundError)
  })

  it('reports a missing blob as BlobNotFoundError naming the store, and has() as false', async () => {
    const store = createHttpStore(server.url)
    const missing = sha256Hex(new TextEncoder().encode('never stored'))
    assert.equal(await store.has(missing), false)
    await assert.rejects(store.get(missing), (error: unknown) => {
      assert.ok(error instanceof BlobNotFoundError)
      assert.equal(error.shortMessage, `blob not found: ${missing} (store ${server.url})`)
      return true
    })
  })

  it('detects a blob tampered with on its way from a real server (BlobIntegrityError), and never returns it', async () => {
    const bytes = new TextEncoder().encode('weights that must not change')
    const hash = await createLocalStore(dir).put(bytes)
    // A man in the middle: forwards every request to the real server and flips one byte of each blob it relays.
    const proxy = await listen(
      createServer(async (request, response) => {
        const upstream = await fetch(`${server.url}${request.url}`)
        const body = new Uint8Array(await upstream.arrayBuffer())
        if (body.length > 0) body[0] = (body[0] as number) ^ 0x01
        response.writeHead(upstream.status, {'content-type': 'application/octet-stream'})
        response.end(body)
      }),
    )
    try {
      const store = createHttpStore(proxy.url)
      await assert.rejects(store.get(hash), (error: unknown) => {
        assert.ok(error instanceof BlobIntegrityError)
        assert.equal(error.hash, hash)
        const tampered = new Uint8Array(bytes)
        tampered[0] = (tampered[0] as number) ^ 0x01
        assert.equal(error.actual, sha256Hex(tampered))
        assert.match(error.shortMessage, /^blob 0x[0-9a-f]{64}: expected its sha256 to match, got 0x[0-9a-f]{64}$/)
        return true
      })
      await assert.rejects(store.getJson(hash), BlobIntegrityError)
      assert.deepEqual(await createHttpStore(server.url).get(hash), bytes, 'the direct read is intact')
    } finally {
      await proxy.close()
    }
  })

  it('surfaces a blob corrupt on the server as a one-line BlobStoreHttpError (500)', async () => {
    const bytes = new Uint8Array(64).fill(3)
    const hash = await createLocalStore(dir).put(bytes)
    await writeFile(join(dir, 'sha256', hash.slice(2, 4), hash.slice(4)), new Uint8Array(64).fill(4))
    await assert.rejects(createHttpStore(server.url, {attempts: 1}).get(hash), (error: unknown) => {
      assert.ok(error instanceof BlobStoreHttpError)
      assert.equal(error.status, 500)
      assert.match(error.shortMessage, /^GET blob 0x[0-9a-f]{64} from http:\/\/127\.0\.0\.1:\d+: the blob store answered 500 \(blob 0x[0-9a-f]{64} is corrupt on the server; PUT it again to repair it\)$/)
      return true
    })
  })

  it('names an unreachable store (after retries) and rejects a URL that is not http(s)', async () => {
    const closed = await serveStore({dir})
    await closed.close()
    const started = Date.now()
    await assert.rejects(createHttpStore(closed.url, {attempts: 2, retryDelayMs: 50}).get(sha256Hex(new Uint8Array([1]))), (error: unknown) => {
      assert.ok(error instanceof BlobStoreUnreachableError)
      assert.equal(error.shortMessage, `blob store ${closed.url}: unreachable (ECONNREFUSED)`)
      return true
    })
    assert.ok(Date.now() - started >= 50, 'retried once after the delay')
    assert.throws(() => createHttpStore('ftp://example.org/blobs'), (error: unknown) => error instanceof InvalidInputError && /--store: expected a folder or an http\(s\):\/\/ URL, got ftp:\/\/example\.org\/blobs/.test(error.shortMessage))
    assert.throws(() => createHttpStore('http://example.org/?a=1'), /--store: expected a URL without \?query/)
  })
})

/** Starts a server on a free port of 127.0.0.1. */
async function listen(server: Server): Promise<{url: string; close(): Promise<void>}> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
