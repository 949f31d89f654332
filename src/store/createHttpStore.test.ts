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
  type StoreRequestLog,
  type StoreServer,
} from './index.js'

const token = 'the-upload-token-of-this-test-run'

describe('createHttpStore (against a real gensyn store server)', () => {
  let dir: string
  let server: StoreServer
  const logged: StoreRequestLog[] = []

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-http-store-'))
    logged.length = 0
    server = await serveStore({dir, token, onRequest: (entry) => logged.push(entry)})
  })
  afterEach(async () => {
    await server.close()
    await rm(dir, {recursive: true, force: true})
  })

  it('puts and gets bytes and canonical JSON, which land in the served folder', async () => {
    const store = createHttpStore(server.url, {token})
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
    const store = createHttpStore(`${server.url}/`, {token})
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

  it('fails an upload without the token, or with a wrong one, at once (no retry) with one line naming the URL', async () => {
    const bytes = new TextEncoder().encode('a spec')
    for (const client of [createHttpStore(server.url), createHttpStore(server.url, {token: 'a-wrong-token-of-enough-length'})]) {
      await assert.rejects(client.put(bytes), (error: unknown) => {
        assert.ok(error instanceof BlobStoreHttpError)
        assert.equal(error.status, 401)
        assert.equal(
          error.shortMessage,
          `PUT blob ${sha256Hex(bytes)} to ${server.url}: the blob store answered 401 (uploads need the store token: send authorization: Bearer <token> (actors: --store-token or GENSYN_STORE_TOKEN))`,
        )
        assert.match(error.details ?? '', /--store-token, GENSYN_STORE_TOKEN or the network file's storeToken/)
        return true
      })
    }
    assert.deepEqual(
      logged.map((entry) => entry.status),
      [401, 401],
      'one request each',
    )
    assert.deepEqual(await createHttpStore(server.url).get(await createHttpStore(server.url, {token}).put(bytes)), bytes, 'reads need no token')
  })

  it('retries 429 and 5xx with backoff until the server takes the upload, and gives up on 507 at once', async () => {
    // In front of the real server: answers the first two requests itself (a 429 with retry-after 0, then a 503).
    const refusals = [429, 503]
    const seen: number[] = []
    const proxy = await listen(
      createServer(async (request, response) => {
        const chunks: Buffer[] = []
        for await (const chunk of request) chunks.push(chunk as Buffer)
        const body = Buffer.concat(chunks)
        const refusal = refusals.shift()
        if (refusal !== undefined) {
          seen.push(refusal)
          response.writeHead(refusal, {'retry-after': '0'})
          return response.end('busy\n')
        }
        const upstream = await fetch(`${server.url}${request.url}`, {method: request.method, body: request.method === 'PUT' ? body : undefined, headers: {authorization: request.headers.authorization ?? ''}})
        seen.push(upstream.status)
        response.writeHead(upstream.status)
        response.end(new Uint8Array(await upstream.arrayBuffer()))
      }),
    )
    try {
      const bytes = new Uint8Array(1000).fill(5)
      assert.equal(await createHttpStore(proxy.url, {token, retryDelayMs: 10}).put(bytes), sha256Hex(bytes))
      assert.deepEqual(seen, [429, 503, 201])
      assert.deepEqual(await createLocalStore(dir).get(sha256Hex(bytes)), bytes)
    } finally {
      await proxy.close()
    }
    const full = await serveStore({dir, token, maxStoreBytes: 1500, onRequest: (entry) => logged.push(entry)})
    logged.length = 0
    try {
      await assert.rejects(createHttpStore(full.url, {token, retryDelayMs: 10}).put(new Uint8Array(1000).fill(6)), (error: unknown) => {
        assert.ok(error instanceof BlobStoreHttpError)
        assert.equal(error.status, 507)
        assert.match(error.shortMessage, /^PUT blob 0x[0-9a-f]{64} to http:\/\/127\.0\.0\.1:\d+: the blob store answered 507 \(the store is full: it holds 1000 bytes/)
        return true
      })
      assert.deepEqual(
        logged.map((entry) => entry.status),
        [507],
        'not retried',
      )
    } finally {
      await full.close()
    }
  })

  it('gives up on a server that keeps answering 503 after the bounded attempts, naming the URL and the count', async () => {
    const busy = await listen(
      createServer((request, response) => {
        request.resume()
        response.writeHead(503)
        response.end('restarting\n')
      }),
    )
    try {
      await assert.rejects(createHttpStore(busy.url, {attempts: 3, retryDelayMs: 10}).get(sha256Hex(new Uint8Array([1]))), (error: unknown) => {
        assert.ok(error instanceof BlobStoreHttpError)
        assert.equal(error.shortMessage, `GET blob ${sha256Hex(new Uint8Array([1]))} from ${busy.url}: the blob store answered 503 (restarting) after 3 attempts`)
        return true
      })
    } finally {
      await busy.close()
    }
  })

  it('names an unreachable store (after retries) and rejects a URL that is not http(s)', async () => {
    const closed = await serveStore({dir})
    await closed.close()
    const started = Date.now()
    await assert.rejects(createHttpStore(closed.url, {attempts: 2, retryDelayMs: 50}).get(sha256Hex(new Uint8Array([1]))), (error: unknown) => {
      assert.ok(error instanceof BlobStoreUnreachableError)
      assert.equal(error.shortMessage, `blob store ${closed.url}: unreachable (ECONNREFUSED) after 2 attempts`)
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
