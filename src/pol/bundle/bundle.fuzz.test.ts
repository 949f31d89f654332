import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import fc from 'fast-check'
import type {Hex} from 'viem'

import {BaseError} from '../../errors/base.js'
import {jobSpecSchema} from '../../ml/spec/index.js'
import {trainJob} from '../../ml/train/index.js'
import {canonicalJson} from '../../store/canonicalJson.js'
import {createLocalStore} from '../../store/index.js'
import {sha256Hex} from '../../store/sha256.js'
import {merkleRoot} from '../../ml/checkpoint/merkle.js'
import {verifyBundle, writeBundle} from './index.js'

/**
 * Throws mutated proof bundles and specs at the entry point `gensyn verify --proof` uses (verifyBundle: readBundle,
 * then verifyProof) and requires every one to end in a verdict (accepted, rejected, inconclusive) or a typed
 * one-line BaseError: never a TypeError or RangeError, a stack trace, a hang or more work than the limits allow.
 * GENSYN_FUZZ_RUNS and GENSYN_FUZZ_SEED change the run; GENSYN_FUZZ_REPORT=1 prints the figures
 * docs/reliability.md quotes.
 */
const runs = Number(process.env.GENSYN_FUZZ_RUNS ?? 10_000)
const seed = Number(process.env.GENSYN_FUZZ_SEED ?? 20261127)

/** A job small enough that a replay of its one segment (10 steps of 784-4-10, batches of 8) costs milliseconds. */
const fuzzJob = {
  name: 'fuzz-mlp',
  model: {inputShape: [784], layers: [{type: 'dense', units: 4, activation: 'relu'}, {type: 'dense', units: 10, activation: 'softmax'}]},
  dataset: {name: 'mnist', trainLimit: 256, testLimit: 64},
  training: {steps: 20, batchSize: 8, optimizer: {type: 'adam', learningRate: 0.003}, seed: 3},
  proof: {checkpointInterval: 10},
  verification: {segments: 2},
  payment: {maxPrice: '0.00002'},
}
const stepsPerSegment = fuzzJob.proof.checkpointInterval

type Files = Map<string, Uint8Array>
const hostileValues: unknown[] = [
  -1, 0, 1.5, 2 ** 53 + 1, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 4294967296, '', 'x'.repeat(100_000), null, true, [], {},
  '../../etc/passwd', '/dev/zero', 'checkpoints', '\u0000', '\ud800', {type: 'residual', layers: []}, Array.from({length: 50_000}, () => 1),
]
/** Tokens that are no JSON (or overflow a double), put where a value was. */
const rawTokens = ['NaN', 'Infinity', '-Infinity', '1e999', '-1e999', `1${'0'.repeat(400)}`, '0x10', '01', '.5', 'undefined', '"\\ud800"', '1.0', '1E2', '-0']

const textFile = fc.constantFrom('proof.json', 'spec.json')
const anyFile = fc.constantFrom('proof.json', 'spec.json', 'checkpoints/step-00000000.ckpt', 'checkpoints/step-00000010.ckpt', 'checkpoints/step-00000020.ckpt')
const checkpointIndex = fc.integer({min: 0, max: 2})

/** One way to damage a bundle; `fix` re-hashes what it changed so the damage reaches the checks after the hashes. */
type Mutation =
  | {kind: 'flip'; file: string; at: number; xor: number; fix: boolean}
  | {kind: 'truncate'; file: string; at: number; fix: boolean}
  | {kind: 'insert'; file: string; at: number; text: string}
  | {kind: 'duplicate-key'; file: string; at: number}
  | {kind: 'value'; file: string; at: number; value: unknown; fix: boolean}
  | {kind: 'token'; file: string; at: number; token: string}
  | {kind: 'nest'; file: string; depth: number}
  | {kind: 'checkpoint-u32'; index: number; offset: number; value: number; fix: boolean}
  | {kind: 'fs'; file: string; op: FsOp}
type FsOp = 'delete' | 'folder' | 'fifo' | 'symlink-out' | 'symlink-in' | 'symlink-loop' | 'dev-zero' | 'sparse-huge' | 'extra-file' | 'extra-folder'

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({kind: fc.constant('flip' as const), file: anyFile, at: fc.nat(), xor: fc.integer({min: 1, max: 255}), fix: fc.boolean()}),
  fc.record({kind: fc.constant('truncate' as const), file: anyFile, at: fc.nat(), fix: fc.boolean()}),
  fc.record({kind: fc.constant('insert' as const), file: textFile, at: fc.nat(), text: fc.oneof(fc.string(), fc.constantFrom(' ', '\n', ',', '{', '}', '[', ']', '"', '\\', ':'))}),
  fc.record({kind: fc.constant('duplicate-key' as const), file: textFile, at: fc.nat()}),
  fc.record({kind: fc.constant('value' as const), file: textFile, at: fc.nat(), value: fc.oneof(fc.constantFrom(...hostileValues), fc.jsonValue({maxDepth: 3})), fix: fc.boolean()}),
  fc.record({kind: fc.constant('token' as const), file: textFile, at: fc.nat(), token: fc.constantFrom(...rawTokens)}),
  fc.record({kind: fc.constant('nest' as const), file: textFile, depth: fc.oneof(fc.integer({min: 60, max: 70}), fc.constant(1_000_000))}),
  fc.record({
    kind: fc.constant('checkpoint-u32' as const),
    index: checkpointIndex,
    // the header's version, step, optimizer, t, tensor count, then the first tensor's name length, rank and shape
    offset: fc.constantFrom(8, 12, 16, 20, 32, 36, 52, 56, 60),
    value: fc.oneof(fc.constantFrom(0, 1, 2, 3, 8, 9, 1024, 1025, 0x7fffffff, 0xffffffff), fc.nat()),
    fix: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('fs' as const),
    file: anyFile,
    op: fc.constantFrom<FsOp>('delete', 'folder', 'fifo', 'symlink-out', 'symlink-in', 'symlink-loop', 'dev-zero', 'sparse-huge', 'extra-file', 'extra-folder'),
  }),
)

describe('proof bundles as hostile input: a fuzz test through verifyBundle (readBundle + verifyProof)', function () {
  this.timeout(300_000)
  let work: string
  let pristine: Files

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'gensyn-bundle-fuzz-'))
    const spec = jobSpecSchema.parse(fuzzJob)
    const store = createLocalStore(path.join(work, 'store'))
    const trained = await trainJob({spec, store})
    const good = path.join(work, 'good')
    const {files} = await writeBundle({spec, store, manifest: trained.manifest, outDir: good})
    pristine = new Map(await Promise.all(files.map(async (file) => [file, new Uint8Array(await readFile(path.join(good, file)))] as const)))
  })
  after(async () => {
    await rm(work, {recursive: true, force: true})
  })

  it(`ends each of ${runs} mutated bundles and specs in a verdict or a typed one-line error, within the work limits`, async () => {
    const figures = {cases: 0, accepted: 0, rejected: 0, inconclusive: 0, errors: {} as Record<string, number>, replayedSteps: 0, mostStepsInACase: 0, slowestMs: 0}
    const started = performance.now()
    // one folder for every case: each case changes a few paths of the pristine bundle and puts them back after
    const dir = path.join(work, 'case')
    await mkdir(path.join(dir, 'checkpoints'), {recursive: true})
    for (const [file, bytes] of pristine) await writeFile(path.join(dir, file), bytes)
    await fc.assert(
      // a quarter of the cases replay as many segments as the (maybe mutated) spec asks: the CLI's default
      fc.asyncProperty(mutation, fc.integer({min: 0, max: 3}), async (damage, draw) => {
        const segments = draw === 0 ? undefined : 1
        const touched = await damageCase(dir, pristine, damage)
        const caseStarted = performance.now()
        try {
          const {report} = await verifyBundle({dir, seed: 'fuzz', segments})
          const steps = report.segments.reduce((sum, replay) => sum + replay.endStep - replay.startStep, 0)
          // the work bound: one segment of the job's interval, or every step of the job, whatever the bundle claims
          assert.ok(steps <= (segments === 1 ? stepsPerSegment : fuzzJob.training.steps), `replayed ${steps} steps`)
          assert.ok(!/\n|\b(TypeError|RangeError|ReferenceError)\b|\n\s+at /.test(report.reason ?? ''), `untyped reason: ${report.reason}`)
          figures.replayedSteps += steps
          figures.mostStepsInACase = Math.max(figures.mostStepsInACase, steps)
          if (report.accepted) figures.accepted++
          else if (report.inconclusive) figures.inconclusive++
          else figures.rejected++
        } catch (error) {
          assert.ok(error instanceof BaseError, `not a typed error: ${error instanceof Error ? error.stack : String(error)}`)
          assert.equal(error.shortMessage.includes('\n'), false, error.shortMessage)
          assert.ok(error.shortMessage.length > 0 && error.shortMessage.length < 2_000, error.shortMessage.slice(0, 200))
          figures.errors[error.name] = (figures.errors[error.name] ?? 0) + 1
        } finally {
          figures.cases++
          figures.slowestMs = Math.max(figures.slowestMs, performance.now() - caseStarted)
          await restoreCase(dir, pristine, touched)
        }
      }),
      {numRuns: runs, seed, endOnFailure: true},
    )
    assert.equal(figures.cases, runs)
    // the mutations must reach past parsing: some bundles are rejected by verification, some replays run
    assert.ok(figures.rejected > 0 && figures.replayedSteps > 0, JSON.stringify(figures))
    if (process.env.GENSYN_FUZZ_REPORT === '1')
      process.stdout.write(`bundle fuzz: seed ${seed}, ${JSON.stringify({...figures, seconds: Math.round((performance.now() - started) / 100) / 10})}\n`)
  })
})

/**
 * Applies `damage` to the pristine bundle in `dir` (and, with `fix`, makes its hashes consistent again); returns
 * the paths it changed, for restoreCase.
 */
async function damageCase(dir: string, pristine: Files, damage: Mutation): Promise<string[]> {
  if (damage.kind === 'fs') return mutateFiles(dir, damage.file, damage.op)
  const files: Files = new Map(pristine)
  mutateBytes(files, damage)
  const changed = [...files.keys()].filter((file) => files.get(file) !== pristine.get(file))
  for (const file of changed) await writeFile(path.join(dir, file), files.get(file) as Uint8Array)
  return changed
}

/** Puts the paths a case changed back as they were in the pristine bundle. */
async function restoreCase(dir: string, pristine: Files, touched: string[]): Promise<void> {
  for (const file of touched) {
    await rm(path.join(dir, file), {recursive: true, force: true})
    const bytes = pristine.get(file)
    if (bytes) await writeFile(path.join(dir, file), bytes)
  }
}

function mutateBytes(files: Files, damage: Exclude<Mutation, {kind: 'fs'}>): void {
  if (damage.kind === 'checkpoint-u32') {
    const file = `checkpoints/step-${String(damage.index * 10).padStart(8, '0')}.ckpt`
    const bytes = Uint8Array.from(files.get(file) as Uint8Array)
    new DataView(bytes.buffer).setUint32(Math.min(damage.offset, bytes.length - 4), damage.value, true)
    files.set(file, bytes)
    if (damage.fix) rehash(files, file)
    return
  }
  if (damage.kind === 'nest') {
    files.set(damage.file, encode(`${'['.repeat(damage.depth)}${']'.repeat(damage.depth)}`))
    return
  }
  const bytes = files.get(damage.file) as Uint8Array
  const at = damage.kind === 'value' ? damage.at : damage.at % (bytes.length + 1)
  files.set(damage.file, mutatedFile(bytes, damage, at))
  if ('fix' in damage && damage.fix) rehash(files, damage.file)
}

function mutatedFile(bytes: Uint8Array, damage: Exclude<Mutation, {kind: 'fs' | 'checkpoint-u32' | 'nest'}>, at: number): Uint8Array {
  const text = new TextDecoder().decode(bytes)
  switch (damage.kind) {
    case 'flip': {
      const copy = Uint8Array.from(bytes)
      if (at < copy.length) copy[at] = (copy[at] as number) ^ damage.xor
      return copy
    }
    case 'truncate':
      return bytes.subarray(0, at)
    case 'insert':
      return encode(text.slice(0, at) + damage.text + text.slice(at))
    case 'duplicate-key': {
      // repeat one "key":value member right after it: JSON.parse would keep the copy silently
      const members = [...text.matchAll(/"[A-Za-z0-9]+":("[^"]*"|-?[0-9.e+]+|true|false|null)/g)]
      const member = members[at % members.length]
      if (!member) return bytes
      const end = (member.index ?? 0) + member[0].length
      return encode(`${text.slice(0, end)},${member[0]}${text.slice(end)}`)
    }
    case 'value':
      return encode(replaceValue(text, at, damage.value))
    case 'token':
      return encode(replaceValue(text, at, '\u0000TOKEN\u0000').replace('"\\u0000TOKEN\\u0000"', damage.token))
  }
}

/** Canonical JSON of the file with the `at`-th value (in a walk of the document) replaced by `value`. */
function replaceValue(text: string, at: number, value: unknown): string {
  const root = JSON.parse(text) as unknown
  const slots: {parent: Record<string, unknown>; key: string}[] = []
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return
    for (const key of Object.keys(node)) {
      slots.push({parent: node as Record<string, unknown>, key})
      walk((node as Record<string, unknown>)[key])
    }
  }
  walk(root)
  const slot = slots[at % slots.length]
  if (slot) slot.parent[slot.key] = value
  return canonicalJson(root)
}

/** Makes proof.json claim the changed file's hash again (and the Merkle root over the checkpoints). */
function rehash(files: Files, changed: string): void {
  let proof: Record<string, any>
  try {
    proof = JSON.parse(new TextDecoder().decode(files.get('proof.json'))) as Record<string, any>
  } catch {
    return // proof.json itself no longer parses: nothing to fix
  }
  const hash = sha256Hex(files.get(changed) as Uint8Array)
  if (changed === 'spec.json' && proof.spec) proof.spec.sha256 = proof.specHash = hash
  const checkpoints = Array.isArray(proof.checkpoints) ? (proof.checkpoints as {file: string; sha256: Hex}[]) : []
  for (const checkpoint of checkpoints) if (checkpoint?.file === changed) checkpoint.sha256 = hash
  if (checkpoints.every((checkpoint) => typeof checkpoint?.sha256 === 'string')) {
    try {
      proof.merkleRoot = merkleRoot(checkpoints.map((checkpoint) => checkpoint.sha256))
    } catch {
      // a mutated list the Merkle tree refuses stays as it is
    }
  }
  try {
    files.set('proof.json', encode(canonicalJson(proof)))
  } catch {
    // a value canonical JSON refuses (a non-finite number) stays unfixed
  }
}

/** Replaces `file` in the bundle by something that is not a regular file inside it (or adds what was not asked for). */
async function mutateFiles(dir: string, file: string, op: FsOp): Promise<string[]> {
  const target = path.join(dir, file)
  await (op.startsWith('extra') ? undefined : rm(target, {force: true}))
  switch (op) {
    case 'delete':
      return [file]
    case 'folder':
      await mkdir(target)
      return [file]
    case 'fifo':
      execFileSync('mkfifo', [target])
      return [file]
    case 'symlink-out':
      await symlink(path.join(dir, '..', 'good', 'proof.json'), target)
      return [file]
    case 'symlink-in': {
      const others = (await readdir(path.join(dir, 'checkpoints'))).map((name) => path.join(dir, 'checkpoints', name))
      await symlink(others.find((other) => other !== target) ?? path.join(dir, 'proof.json'), target)
      return [file]
    }
    case 'symlink-loop':
      await symlink(target, target)
      return [file]
    case 'dev-zero':
      await symlink('/dev/zero', target)
      return [file]
    case 'sparse-huge':
      // an 8 GiB file of holes: a reader that trusted its size would try to allocate it
      await writeFile(target, '')
      await truncate(target, 8 * 1024 ** 3)
      return [file]
    case 'extra-file':
      await writeFile(path.join(dir, 'checkpoints', 'extra.ckpt'), 'not named by proof.json')
      return ['checkpoints/extra.ckpt']
    case 'extra-folder':
      await mkdir(path.join(dir, 'spec.json.d', 'deeper'), {recursive: true})
      return ['spec.json.d']
  }
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text)
