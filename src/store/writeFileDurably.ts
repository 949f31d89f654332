import {Worker} from 'node:worker_threads'

/**
 * The worker's whole program, plain JavaScript so that it runs the same compiled, under tsx and in the bench
 * bundle. For each request: nothing if `target` already holds bytes of sha256 `unlessSha256`; else it makes the
 * folders of `tmp` and `target`, writes the bytes to `tmp` (which must not exist), fsyncs it (unless `fsync` is
 * false), closes it and renames it over `target`. On a failure it removes the `tmp` it created and replies with the error's message
 * and code.
 */
const workerSource = `
const {parentPort} = require('node:worker_threads')
const {createHash} = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const intact = (file, sha256) => {
  try {
    return fs.statSync(file).isFile() && createHash('sha256').update(fs.readFileSync(file)).digest('hex') === sha256
  } catch {
    return false
  }
}
parentPort.on('message', ({id, tmp, target, bytes, unlessSha256, fsync}) => {
  let fd
  let created = false
  try {
    if (unlessSha256 !== undefined && intact(target, unlessSha256)) return parentPort.postMessage({id, written: false})
    fs.mkdirSync(path.dirname(tmp), {recursive: true})
    fs.mkdirSync(path.dirname(target), {recursive: true})
    fd = fs.openSync(tmp, 'wx')
    created = true
    for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done)
    if (fsync) fs.fsyncSync(fd)
    fs.closeSync(fd)
    fd = undefined
    fs.renameSync(tmp, target)
    parentPort.postMessage({id, written: true})
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd)
    // only a file this request created: a tmp that was there before belongs to someone else
    if (created) fs.rmSync(tmp, {force: true})
    parentPort.postMessage({id, error: {message: error.message, code: error.code, syscall: error.syscall, path: error.path}})
  }
})
`

type WriteReply = {id: number; written?: boolean; error?: {message: string; code?: string; syscall?: string; path?: string}}
type Pending = {resolve: (written: boolean) => void; reject: (error: Error) => void}

let writer: {worker: Worker; pending: Map<number, Pending>; nextId: number} | undefined

/** The process's one writer thread, started on first use; it keeps the process alive only while a write is pending. */
function writerThread(): NonNullable<typeof writer> {
  if (writer) return writer
  const worker = new Worker(workerSource, {eval: true})
  const state = {worker, pending: new Map<number, Pending>(), nextId: 0}
  worker.unref()
  worker.on('message', ({id, written, error}: WriteReply) => {
    const request = state.pending.get(id)
    state.pending.delete(id)
    if (state.pending.size === 0) worker.unref()
    if (!request) return
    if (!error) return request.resolve(written === true)
    request.reject(Object.assign(new Error(error.message), {code: error.code, syscall: error.syscall, path: error.path}))
  })
  const fail = (error: Error) => {
    if (writer === state) writer = undefined
    for (const request of state.pending.values()) request.reject(error)
    state.pending.clear()
  }
  worker.on('error', fail)
  worker.on('exit', (code) => fail(new Error(`file writer thread exited (code ${code})`)))
  writer = state
  return state
}

export type WriteFileDurablyOptions = {
  /** Write nothing if `target` is already a file of these bytes (their sha256, hex, no 0x); it is rewritten if it holds others. */
  unlessSha256?: string | undefined
  /** fsync the file before the rename (default true): a power cut cannot leave a torn file. Scratch stores in tests skip it. */
  fsync?: boolean | undefined
}

/**
 * Writes `bytes` to `tmp`, fsyncs it (unless told not to) and renames it over `target` (making their folders), on
 * a thread of its own; resolves to whether it wrote. The point is the fsync: it takes milliseconds, and a trainer that stores a
 * checkpoint and goes on training keeps this thread busy for the whole interval, so a write made of promise steps
 * here would only advance at the next checkpoint. The request is posted before this returns. Rejects with the
 * failing call's error (its `code` kept), `tmp` removed.
 */
export function writeFileDurably(tmp: string, target: string, bytes: Uint8Array, options: WriteFileDurablyOptions = {}): Promise<boolean> {
  const thread = writerThread()
  const id = thread.nextId++
  return new Promise<boolean>((resolve, reject) => {
    thread.pending.set(id, {resolve, reject})
    thread.worker.ref()
    thread.worker.postMessage({id, tmp, target, bytes, unlessSha256: options.unlessSha256, fsync: options.fsync ?? true})
  })
}
