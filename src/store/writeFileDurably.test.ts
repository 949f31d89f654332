import assert from 'node:assert/strict'
import {mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'

import {writeFileDurably} from './writeFileDurably.js'

describe('writeFileDurably (a writer thread: write, fsync, rename)', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-durable-'))
  })
  afterEach(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('puts the whole bytes at the target and leaves no temporary file, for writes in flight at once', async () => {
    const blobs = Array.from({length: 20}, (_, i) => Uint8Array.from({length: 1000 + i * 7919}, (__, j) => (i * 31 + j) % 251))
    await Promise.all(blobs.map((bytes, i) => writeFileDurably(join(dir, `tmp-${i}`), join(dir, `blob-${i}`), bytes)))
    for (const [i, bytes] of blobs.entries()) assert.deepEqual(new Uint8Array(await readFile(join(dir, `blob-${i}`))), bytes)
    assert.equal((await readdir(dir)).filter((name) => name.startsWith('tmp-')).length, 0)
  })

  it('makes the folders, writes nothing over a target of the same bytes and rewrites one holding others', async () => {
    const {createHash} = await import('node:crypto')
    const bytes = Uint8Array.of(1, 2, 3)
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const target = join(dir, 'sha256', 'ab', 'blob')
    assert.equal(await writeFileDurably(join(dir, 'tmp', 'a'), target, bytes, {unlessSha256: sha256}), true)
    assert.equal(await writeFileDurably(join(dir, 'tmp', 'b'), target, bytes, {unlessSha256: sha256}), false)
    await writeFile(target, 'corrupt')
    assert.equal(await writeFileDurably(join(dir, 'tmp', 'c'), target, bytes, {unlessSha256: sha256}), true)
    assert.deepEqual([...(await readFile(target))], [1, 2, 3])
    assert.deepEqual(await readdir(join(dir, 'tmp')), [])
  })

  it("rejects with the failing call's code and message, removes the temporary file and keeps working", async () => {
    await writeFile(join(dir, 'file'), 'x')
    await assert.rejects(writeFileDurably(join(dir, 'file', 'tmp'), join(dir, 'blob'), new Uint8Array(4)), (error: NodeJS.ErrnoException) => {
      assert.ok(error.code === 'ENOTDIR' || error.code === 'EEXIST', String(error.code))
      assert.match(error.message, /^(ENOTDIR|EEXIST): .*, mkdir /)
      return true
    })
    await writeFile(join(dir, 'taken'), 'x')
    await assert.rejects(writeFileDurably(join(dir, 'taken'), join(dir, 'blob'), new Uint8Array(4)), {code: 'EEXIST', syscall: 'open'})
    // the rename fails (its target is a non-empty folder): the written temporary file is removed
    await mkdir(join(dir, 'folder'))
    await writeFile(join(dir, 'folder', 'inside'), 'x')
    await assert.rejects(writeFileDurably(join(dir, 'tmp-rename'), join(dir, 'folder'), new Uint8Array(4)), {syscall: 'rename'})
    assert.deepEqual((await readdir(dir)).sort(), ['file', 'folder', 'taken'])
    await writeFileDurably(join(dir, 'tmp-ok'), join(dir, 'blob'), Uint8Array.of(1, 2, 3))
    assert.deepEqual([...(await readFile(join(dir, 'blob')))], [1, 2, 3])
  })

  it('keeps a process alive until its write is done, and not after', async () => {
    const module = new URL('writeFileDurably.ts', import.meta.url).href
    const target = join(dir, 'blob')
    const script = `import(${JSON.stringify(module)}).then((m) => { m.writeFileDurably(${JSON.stringify(join(dir, 'tmp'))}, ${JSON.stringify(target)}, new Uint8Array(1 << 20).fill(7)) })`
    // the child does not await the write: it ends once the writer thread has nothing pending
    const child = await execa('node', ['--import', 'tsx', '-e', script], {timeout: 30_000})
    assert.equal(child.exitCode, 0)
    const written = await readFile(target)
    assert.equal(written.length, 1 << 20)
    assert.ok(written.every((byte) => byte === 7))
  })
})
