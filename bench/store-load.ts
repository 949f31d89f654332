// A load test of `gensyn store serve` on loopback: `npm run bench:store` (= `npx tsx bench/store-load.ts`).
// The server is the real command in a child process (from source), over a fresh folder,
// with --max-blob-mb 4 and its other limits at their defaults (32 uploads at once). Then:
//  1. 64 blobs (1 KiB to 4 MiB) are uploaded, and the server's idle RSS is read from /proc/<pid>/status;
//  2. 200 concurrent clients run 10,000 operations drawn from a fixed mix: reads and writes through the
//     client actors use (createHttpStore: it verifies every read and retries 429 and 5xx with backoff),
//     HEADs, reads of missing blobs, and hostile requests on raw HTTP: bodies that do not hash to their
//     name, uploads without or with a wrong token, bodies past the size limit (declared, or chunked and cut
//     off as they arrive), uploads dropped halfway, and slow clients (a writer that trickles 256 KiB over
//     1.6 s holding an upload slot, a reader that takes 4 MiB in 64 KiB sips 20 ms apart);
//  3. every file in the store is hashed again and must match its name, every acknowledged write must be
//     there, and no temporary file may be left.
// It prints throughput, latency (p50, p99, max) per kind of operation, what the server answered, and its
// peak memory (VmHWM) against its idle RSS. About a minute on 2 cores.
//
// Options: --clients N (200), --operations N (10000), --max-uploads N (the server's default),
// --json FILE (every figure as JSON). Progress goes to stderr, tables to stdout.
import {createHash, randomBytes} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {Agent, request as httpRequest} from 'node:http'
import {cpus, tmpdir} from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'

import type {Hex} from 'viem'

import {createHttpStore} from '../src/store/createHttpStore.js'
import type {BlobStore} from '../src/store/types.js'
import {memoryOf, startStoreServeProcess, type StoreServeProcess} from '../test/helpers/storeServeProcess.js'
import {table} from './verificationMatrix.js'

const token = randomBytes(24).toString('hex')
const kib = 1024
const mib = 1024 * kib
const maxBlobMib = 4

/** What a client does, and how often (weights out of 100). */
const mix = [
  ['read', 40],
  ['write', 22],
  ['head', 5],
  ['missing', 5],
  ['bad hash', 8],
  ['no token', 5],
  ['oversize', 3],
  ['aborted', 3],
  ['slow writer', 5],
  ['slow reader', 4],
] as const
type Kind = (typeof mix)[number][0]

/** One operation: `answer` is the HTTP status (or what the client reported); `expected` whether that is right. */
type Outcome = {kind: Kind; answer: string; expected: boolean; ms: number; bytesIn: number; bytesOut: number}

type Server = StoreServeProcess

type Load = {known: {hash: Hex; size: number}[]; acknowledged: Set<Hex>; store: BlobStore; agent: Agent; url: string}

async function main(): Promise<void> {
  const {values} = parseArgs({options: {clients: {type: 'string', default: '200'}, operations: {type: 'string', default: '10000'}, 'max-uploads': {type: 'string'}, json: {type: 'string'}}})
  const clients = Number(values.clients)
  const operations = Number(values.operations)
  const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-store-load-'))
  const server = await startServer(dir, values['max-uploads'])
  try {
    const load: Load = {known: [], acknowledged: new Set(), store: createHttpStore(server.url, {token}), agent: new Agent({keepAlive: true, maxSockets: clients * 2}), url: server.url}
    process.stderr.write(`store serve at ${server.url} (pid ${server.pid}), preloading 64 blobs\n`)
    await preload(load)
    const idle = memoryOf(server.pid).rss
    process.stderr.write(`${clients} clients, ${operations} operations\n`)
    const started = performance.now()
    // RSS sampled through the run, to tell a spike of uncollected garbage from a trend that would be a leak.
    const samples: number[] = []
    const sampler = setInterval(() => samples.push(memoryOf(server.pid).rss), 250)
    const outcomes = await runClients(load, clients, operations)
    clearInterval(sampler)
    const seconds = (performance.now() - started) / 1000
    const peak = memoryOf(server.pid).peak
    const quarter = Math.max(1, Math.floor(samples.length / 4))
    const rssTrend = {firstQuarterMax: Math.max(...samples.slice(0, quarter)), lastQuarterMax: Math.max(...samples.slice(-quarter))}
    process.stderr.write(`done in ${seconds.toFixed(1)} s; checking every stored blob\n`)
    const check = await checkStore(dir, load.acknowledged)
    load.agent.destroy()
    server.child.kill('SIGTERM')
    const summary = await server.summary
    const report = {clients, operations, seconds, idleRss: idle, peakRss: peak, rssTrend, check, server: summary, kinds: summarise(outcomes, seconds)}
    printReport(report, outcomes)
    if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`)
    const failed = outcomes.filter((outcome) => !outcome.expected).length
    if (check.corrupt > 0 || check.missing > 0 || check.leftovers > 0 || failed > 0) process.exitCode = 1
  } finally {
    server.child.kill('SIGKILL')
    await rm(dir, {recursive: true, force: true})
  }
}

/** The real `store serve` in its own process, over `dir`. */
function startServer(dir: string, maxUploads: string | undefined): Promise<Server> {
  const args = ['--dir', dir, '--token', token, '--max-blob-mb', String(maxBlobMib)]
  if (maxUploads) args.push('--max-uploads', maxUploads)
  return startStoreServeProcess(args)
}

async function preload(load: Load): Promise<void> {
  for (let i = 0; i < 64; i++) {
    const size = i < 8 ? maxBlobMib * mib - i : Math.round(kib * 2 ** (Math.random() * 10))
    const hash = await load.store.put(randomBytes(size))
    load.known.push({hash, size})
    load.acknowledged.add(hash)
  }
}

async function runClients(load: Load, clients: number, operations: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  let next = 0
  const client = async () => {
    while (next < operations) {
      next++
      outcomes.push(await operate(load, pick()))
      if (outcomes.length % 1000 === 0) process.stderr.write(`  ${outcomes.length} operations\n`)
    }
  }
  await Promise.all(Array.from({length: clients}, client))
  return outcomes
}

function pick(): Kind {
  let roll = Math.random() * 100
  for (const [kind, weight] of mix) {
    roll -= weight
    if (roll < 0) return kind
  }
  return 'read'
}

/** Runs one operation of a kind and says whether the server answered as it should. */
async function operate(load: Load, kind: Kind): Promise<Outcome> {
  const started = performance.now()
  const done = (answer: string, expected: boolean, bytesIn = 0, bytesOut = 0): Outcome => ({kind, answer, expected, ms: performance.now() - started, bytesIn, bytesOut})
  const any = load.known[Math.floor(Math.random() * load.known.length)]!
  const big = load.known[Math.floor(Math.random() * 8)]!
  const auth = {authorization: `Bearer ${token}`}
  switch (kind) {
    case 'read':
      return load.store.get(any.hash).then(
        (bytes) => done('200', true, 0, bytes.byteLength),
        (error: Error) => done(error.name, false),
      )
    case 'write': {
      const bytes = randomBytes(Math.round(kib * 2 ** (Math.random() * 10)))
      return load.store.put(bytes).then(
        (hash) => {
          load.known.push({hash, size: bytes.byteLength})
          load.acknowledged.add(hash)
          return done('201', true, bytes.byteLength)
        },
        // After its retries a write may still find the server at its upload limit: that is load shed, not a fault.
        (error: Error & {status?: number}) => done(String(error.status ?? error.name), error.status === 429),
      )
    }
    case 'head':
      return raw(load, 'HEAD', any.hash, {}).then(({status}) => done(String(status), status === 200))
    case 'missing':
      return raw(load, 'GET', hashOf(randomBytes(8)), {}).then(({status}) => done(String(status), status === 404))
    case 'bad hash':
      return raw(load, 'PUT', hashOf(randomBytes(8)), auth, [randomBytes(4 * kib)]).then(({status}) => done(String(status), status === 400 || status === 429))
    case 'no token': {
      const body = randomBytes(2 * kib)
      const headers: Record<string, string> = Math.random() < 0.5 ? {} : {authorization: `Bearer ${randomBytes(24).toString('hex')}`}
      return raw(load, 'PUT', hashOf(body), headers, [body]).then(({status}) => done(String(status), status === 401))
    }
    case 'oversize': {
      const body = randomBytes(maxBlobMib * mib + kib)
      // Half declare their length (refused before a byte is read), half are chunked and cut off at the limit.
      const chunked = Math.random() < 0.5
      return raw(load, 'PUT', hashOf(body), auth, chunked ? [body.subarray(0, mib), body.subarray(mib)] : [body], {declare: !chunked}).then(({status}) =>
        done(String(status), status === 413 || status === 429),
      )
    }
    case 'aborted':
      return raw(load, 'PUT', hashOf(randomBytes(8)), auth, [randomBytes(256 * kib)], {declaredLength: mib, abort: true}).then(({status}) => done(status === 0 ? 'dropped' : String(status), status === 0 || status === 429))
    case 'slow writer': {
      const body = randomBytes(256 * kib)
      const chunks = Array.from({length: 16}, (_, i) => body.subarray(i * 16 * kib, (i + 1) * 16 * kib))
      return raw(load, 'PUT', hashOf(body), auth, chunks, {gapMs: 100}).then(({status}) => {
        if (status === 201) load.acknowledged.add(hashOf(body))
        return done(String(status), status === 201 || status === 429, body.byteLength)
      })
    }
    case 'slow reader':
      return raw(load, 'GET', big.hash, {}, [], {sipMs: 20}).then(({status, hash}) => done(hash === big.hash ? String(status) : 'corrupt', status === 200 && hash === big.hash, 0, big.size))
  }
}

type RawOptions = {declare?: boolean; declaredLength?: number; abort?: boolean; gapMs?: number; sipMs?: number}

/**
 * One request on plain HTTP, for what the store client would never send: it resolves with the status
 * (0 when the request was dropped on purpose) and the sha256 of the body received.
 */
function raw(load: Load, method: string, hash: Hex, headers: Record<string, string>, chunks: Buffer[] = [], options: RawOptions = {}): Promise<{status: number; hash: Hex}> {
  return new Promise((resolve) => {
    let status = 0
    const total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)
    const length = options.declaredLength ?? (options.declare === false ? undefined : method === 'PUT' ? total : undefined)
    const request = httpRequest(`${load.url}/blobs/${hash.slice(2)}`, {method, agent: load.agent, headers: {...headers, ...(length === undefined ? {} : {'content-length': String(length)})}}, (response) => {
      status = response.statusCode ?? 0
      const digest = createHash('sha256')
      response.on('data', (chunk: Buffer) => {
        digest.update(chunk)
        if (options.sipMs) {
          response.pause()
          setTimeout(() => response.resume(), options.sipMs)
        }
      })
      response.on('end', () => resolve({status, hash: `0x${digest.digest('hex')}`}))
      response.on('error', () => resolve({status, hash: '0x'}))
    })
    // The server may answer a refused upload and cut the connection before the body is out: the answer, if
    // it came, is what counts.
    request.on('error', () => resolve({status, hash: '0x'}))
    if (options.abort) request.on('close', () => resolve({status, hash: '0x'}))
    void sendChunks(request, chunks, options)
  })
}

async function sendChunks(request: ReturnType<typeof httpRequest>, chunks: Buffer[], options: RawOptions): Promise<void> {
  for (const chunk of chunks) {
    if (request.destroyed) return
    request.write(chunk)
    if (options.gapMs) await new Promise((resolve) => setTimeout(resolve, options.gapMs))
  }
  if (options.abort) {
    // Give the bytes time to reach the server (it has opened its temporary file), then vanish.
    await new Promise((resolve) => setTimeout(resolve, 50))
    request.destroy()
    return
  }
  request.end()
}

function hashOf(bytes: Uint8Array): Hex {
  return `0x${createHash('sha256').update(bytes).digest('hex')}`
}

/** Hashes every blob in the folder again; counts the acknowledged ones that are missing and leftover temporary files. */
async function checkStore(dir: string, acknowledged: Set<Hex>): Promise<{blobs: number; corrupt: number; missing: number; leftovers: number}> {
  // A dropped upload's temporary file goes when the server notices the socket closed: give it a moment.
  let leftovers = 0
  for (let wait = 0; wait < 50; wait++) {
    leftovers = (await readdir(path.join(dir, 'tmp')).catch(() => [])).length
    if (leftovers === 0) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const found = new Set<Hex>()
  let corrupt = 0
  for (const prefix of await readdir(path.join(dir, 'sha256'))) {
    for (const rest of await readdir(path.join(dir, 'sha256', prefix))) {
      const name = `0x${prefix}${rest}` as Hex
      found.add(name)
      const digest = createHash('sha256')
      for await (const chunk of createReadStream(path.join(dir, 'sha256', prefix, rest))) digest.update(chunk as Buffer)
      if (`0x${digest.digest('hex')}` !== name) corrupt++
    }
  }
  const missing = [...acknowledged].filter((hash) => !found.has(hash)).length
  return {blobs: found.size, corrupt, missing, leftovers}
}

type KindSummary = {kind: string; count: number; unexpected: number; answers: Record<string, number>; p50: number; p99: number; max: number}

function summarise(outcomes: Outcome[], seconds: number): {all: KindSummary & {perSecond: number; mibIn: number; mibOut: number}; byKind: KindSummary[]} {
  const of = (label: string, list: Outcome[]): KindSummary => {
    const ms = list.map((outcome) => outcome.ms).sort((a, b) => a - b)
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0
    const answers: Record<string, number> = {}
    for (const outcome of list) answers[outcome.answer] = (answers[outcome.answer] ?? 0) + 1
    return {kind: label, count: list.length, unexpected: list.filter((outcome) => !outcome.expected).length, answers, p50: at(0.5), p99: at(0.99), max: ms.at(-1) ?? 0}
  }
  const byKind = mix.map(([kind]) => of(kind, outcomes.filter((outcome) => outcome.kind === kind)))
  const sum = (field: 'bytesIn' | 'bytesOut') => outcomes.reduce((total, outcome) => total + outcome[field], 0) / mib
  return {all: {...of('all', outcomes), perSecond: outcomes.length / seconds, mibIn: sum('bytesIn'), mibOut: sum('bytesOut')}, byKind}
}

function printReport(report: {clients: number; seconds: number; idleRss: number; peakRss: number; rssTrend: {firstQuarterMax: number; lastQuarterMax: number}; check: Awaited<ReturnType<typeof checkStore>>; server: Awaited<Server['summary']>; kinds: ReturnType<typeof summarise>}, outcomes: Outcome[]): void {
  const {all, byKind} = report.kinds
  const ms = (value: number) => value.toFixed(1)
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, node ${process.version}`)
  console.log(`${all.count} operations by ${report.clients} concurrent clients in ${report.seconds.toFixed(1)} s: ${all.perSecond.toFixed(0)} operations/s, ${(all.mibIn / report.seconds).toFixed(1)} MiB/s up, ${(all.mibOut / report.seconds).toFixed(1)} MiB/s down`)
  const ordinary = outcomes.filter((outcome) => outcome.kind === 'read' || outcome.kind === 'write' || outcome.kind === 'head').map((outcome) => outcome.ms).sort((a, b) => a - b)
  console.log(`latency, all operations: p50 ${ms(all.p50)} ms, p99 ${ms(all.p99)} ms, max ${ms(all.max)} ms; reads, writes and HEADs alone: p99 ${ms(ordinary[Math.floor(0.99 * ordinary.length)] ?? 0)} ms`)
  console.log('')
  console.log(table(['operation', 'count', 'answers', 'unexpected', 'p50 ms', 'p99 ms', 'max ms'], byKind.map((row) => [row.kind, String(row.count), Object.entries(row.answers).map(([answer, count]) => `${answer}:${count}`).join(' '), String(row.unexpected), ms(row.p50), ms(row.p99), ms(row.max)])))
  console.log('')
  console.log(`server: ${report.server.requests} HTTP requests, by status ${Object.entries(report.server.statuses).map(([status, count]) => `${status}:${count}`).join(' ')}`)
  console.log(
    `server memory: idle RSS ${(report.idleRss / mib).toFixed(1)} MiB, peak (VmHWM) ${(report.peakRss / mib).toFixed(1)} MiB: +${((report.peakRss - report.idleRss) / mib).toFixed(1)} MiB; highest RSS sampled in the first quarter of the run ${(report.rssTrend.firstQuarterMax / mib).toFixed(1)} MiB, in the last ${(report.rssTrend.lastQuarterMax / mib).toFixed(1)} MiB`,
  )
  console.log(`store: ${report.check.blobs} blobs (${(report.server.storedBytes / mib).toFixed(1)} MiB), every one re-hashed: ${report.check.corrupt} corrupt, ${report.check.missing} acknowledged writes missing, ${report.check.leftovers} temporary files left`)
}

await main()
