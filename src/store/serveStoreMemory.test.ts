import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {mkdtemp, readdir, rm, stat} from 'node:fs/promises'
import {request as httpRequest} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'

import {memoryOf, startStoreServeProcess, type StoreServeProcess} from '../../test/helpers/storeServeProcess.js'

const token = 'memory-test-token-0123456789abcdef'
const mib = 1024 ** 2
/** The bound on the server's memory growth, whatever the size and number of uploads. */
const boundBytes = 64 * mib
const uploads = 4
const blobMib = 64

describe('store serve memory (a real server process, 4 concurrent 64 MiB uploads and downloads)', function () {
  this.timeout(120_000)
  let dir: string
  let server: StoreServeProcess | undefined

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-store-memory-'))
  })
  after(async () => {
    server?.child.kill('SIGKILL')
    await rm(dir, {recursive: true, force: true})
  })

  it('keeps its peak RSS (VmHWM) within 64 MiB of its idle RSS while 256 MiB go in and out, and stores every blob whole', async () => {
    // The real command, from source, in a process of its own: its memory is the server's alone.
    server = await startStoreServeProcess(['--dir', dir, '--token', token, '--max-blob-mb', String(blobMib + 1)])
    const {url, pid} = server
    // Warm up every code path once (a PUT and a GET), so the baseline includes the code, not just startup.
    const small = generated(99, 1)
    assert.equal(await put(url, await hashOf(small), small), 201)
    assert.equal(await getHash(url, await hashOf(small)), await hashOf(small))
    const idle = memoryOf(pid).rss

    const blobs = Array.from({length: uploads}, (_, seed) => generated(seed, blobMib))
    const hashes = await Promise.all(blobs.map((blob) => hashOf(blob)))
    const statuses = await Promise.all(blobs.map((blob, i) => put(url, hashes[i]!, blob)))
    assert.deepEqual(statuses, [201, 201, 201, 201])
    const read = await Promise.all(hashes.map((hash) => getHash(url, hash)))
    assert.deepEqual(read, hashes, 'each blob streams back whole')
    const {peak} = memoryOf(pid)

    const growth = peak - idle
    console.log(`      server RSS idle ${(idle / mib).toFixed(1)} MiB, peak ${(peak / mib).toFixed(1)} MiB: +${(growth / mib).toFixed(1)} MiB for ${uploads} x ${blobMib} MiB up and down`)
    assert.ok(growth < boundBytes, `peak RSS grew by ${(growth / mib).toFixed(1)} MiB, more than ${boundBytes / mib} MiB`)
    for (const hash of hashes) assert.equal((await stat(join(dir, 'sha256', hash.slice(0, 2), hash.slice(2)))).size, blobMib * mib)
    assert.deepEqual(await readdir(join(dir, 'tmp')), [], 'no temporary file left')
  })
})

/** `count` MiB that differ per seed and per MiB, made on the fly: never held whole, here or in the repo. */
function generated(seed: number, count: number): () => Readable {
  const base = createHash('sha256').update(`seed ${seed}`).digest()
  const block = Buffer.alloc(mib)
  for (let offset = 0; offset < mib; offset += base.byteLength) base.copy(block, offset)
  return () =>
    Readable.from(
      (function* () {
        for (let index = 0; index < count; index++) {
          const chunk = Buffer.from(block)
          chunk.writeUInt32BE(index, 0)
          yield chunk
        }
      })(),
    )
}

async function hashOf(make: () => Readable): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of make()) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

function put(url: string, hash: string, make: () => Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/blobs/${hash}`, {method: 'PUT', headers: {authorization: `Bearer ${token}`}}, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', reject)
    make().pipe(request)
  })
}

/** Streams a blob down and hashes it as it comes. */
function getHash(url: string, hash: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpRequest(`${url}/blobs/${hash}`, (response) => {
      const digest = createHash('sha256')
      response.on('data', (chunk: Buffer) => digest.update(chunk))
      response.on('end', () => resolve(digest.digest('hex')))
      response.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}
