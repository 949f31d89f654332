import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {BlobIntegrityError, BlobNotFoundError, createLocalStore, InvalidHashError, sha256Hex} from './index.js'

const run = promisify(execFile)

describe('createLocalStore', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-store-'))
  })
  afterEach(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  for (const fsync of [true, false]) {
    it(`stores bytes under their sha256 and reads them back${fsync ? '' : ' (no fsync)'}`, async () => {
      const store = createLocalStore(dir, {fsync})
      const bytes = new TextEncoder().encode('hello gensyn')
      const hash = await store.put(bytes)
      assert.equal(hash, sha256Hex(bytes))
      assert.equal(hash, '0x' + (await import('node:crypto')).createHash('sha256').update('hello gensyn').digest('hex'))
      assert.ok(await store.has(hash))
      assert.deepEqual(await store.get(hash), bytes)
      assert.equal(await store.put(bytes), hash, 'idempotent')
      const file = await readFile(join(dir, 'sha256', hash.slice(2, 4), hash.slice(4)))
      assert.deepEqual(new Uint8Array(file), bytes)
      assert.deepEqual(await readdir(join(dir, 'tmp')), [], 'no temporary files left')
    })
  }

  it('stores a blob while the calling thread computes: the fsync does not wait for it to await (a trainer between checkpoints)', async () => {
    const store = createLocalStore(dir)
    const bytes = new Uint8Array(1 << 20).fill(3)
    const hash = sha256Hex(bytes)
    const file = join(dir, 'sha256', hash.slice(2, 4), hash.slice(4))
    const stored = store.put(bytes)
    // busy on this thread, as synchronous training is: a put made of promise steps here could not finish meanwhile
    const started = Date.now()
    while (!existsSync(file) && Date.now() - started < 10_000) {
      for (let spin = 0; spin < 1e5; spin++);
    }
    assert.ok(existsSync(file), 'the blob reached its place while this thread never yielded')
    assert.equal(await stored, hash)
    assert.deepEqual(await store.get(hash), bytes)
  })

  it('stores JSON canonically (sorted keys), so equal values share a hash', async () => {
    const store = createLocalStore(dir)
    const a = await store.putJson({b: 1, a: {d: [1, 2], c: 'x'}})
    const b = await store.putJson({a: {c: 'x', d: [1, 2]}, b: 1})
    assert.equal(a, b)
    assert.equal(new TextDecoder().decode(await store.get(a)), '{"a":{"c":"x","d":[1,2]},"b":1}')
    assert.deepEqual(await store.getJson(a), {a: {c: 'x', d: [1, 2]}, b: 1})
  })

  for (const fsync of [true, false]) {
    it(`detects a corrupted blob on disk and repairs it on the next put${fsync ? '' : ' (no fsync)'}`, async () => {
      const store = createLocalStore(dir, {fsync})
      const bytes = new Uint8Array(1000).map((_, i) => i % 251)
      const hash = await store.put(bytes)
      const path = join(dir, 'sha256', hash.slice(2, 4), hash.slice(4))
      const corrupt = new Uint8Array(bytes)
      corrupt[500] = (corrupt[500] as number) ^ 1
      await writeFile(path, corrupt)
      await assert.rejects(store.get(hash), (error: unknown) => {
        assert.ok(error instanceof BlobIntegrityError)
        assert.equal(error.hash, hash)
        assert.equal(error.actual, sha256Hex(corrupt))
        assert.match(error.shortMessage, /^blob 0x[0-9a-f]{64}: expected its sha256 to match, got 0x[0-9a-f]{64}$/)
        return true
      })
      await writeFile(path, bytes.subarray(0, 10)) // truncated
      await assert.rejects(store.get(hash), BlobIntegrityError)
      assert.equal(await store.put(bytes), hash)
      assert.deepEqual(await store.get(hash), bytes)
    })
  }

  it('reports missing blobs and malformed hashes', async () => {
    const store = createLocalStore(dir)
    const missing = sha256Hex(new Uint8Array([1, 2, 3]))
    assert.equal(await store.has(missing), false)
    await assert.rejects(store.get(missing), BlobNotFoundError)
    await assert.rejects(store.get('0xABC' as `0x${string}`), InvalidHashError)
    await assert.rejects(store.get(`0x${'A'.repeat(64)}`), /hash: expected 0x followed by 64 lowercase hex digits/)
  })

  it('is safe for concurrent writers in several processes', async function () {
    this.timeout(60000)
    // three processes write the same 30 blobs (and 10 of their own) into one folder at the same time
    const script = join(dir, 'writer.mts')
    const storeModule = new URL('./createLocalStore.ts', import.meta.url).pathname
    await writeFile(
      script,
      `import {createLocalStore} from ${JSON.stringify(storeModule)}
const store = createLocalStore(${JSON.stringify(join(dir, 'shared'))})
const id = Number(process.argv[2])
const blobs = []
for (let i = 0; i < 30; i++) blobs.push(new Uint8Array(20000).fill(i))
for (let i = 0; i < 10; i++) blobs.push(new Uint8Array(5000).fill(100 + id * 10 + i))
const hashes = await Promise.all(blobs.map((b) => store.put(b)))
for (const h of hashes) await store.get(h)
console.log(hashes.length)
`,
    )
    const tsx = new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname
    const outputs = await Promise.all([0, 1, 2].map((id) => run(process.execPath, [tsx, script, String(id)])))
    for (const out of outputs) assert.equal(out.stdout.trim(), '40')
    const store = createLocalStore(join(dir, 'shared'))
    for (let i = 0; i < 30; i++) assert.deepEqual(await store.get(sha256Hex(new Uint8Array(20000).fill(i))), new Uint8Array(20000).fill(i))
    let count = 0
    for (const sub of await readdir(join(dir, 'shared', 'sha256'))) count += (await readdir(join(dir, 'shared', 'sha256', sub))).length
    assert.equal(count, 60)
    assert.deepEqual(await readdir(join(dir, 'shared', 'tmp')), [])
  })
})
