// Cross-runtime verification bench: `npm run bench:cross-runtime` (= `npx tsx bench/crossRuntime.ts`).
//
// For each fixture model it measures how far honest replays of the same segment land apart when the proof was
// trained on one runtime (the prover: webgpu) and replayed on another (wasm, and cpu where it is fast enough),
// derives tolerance-mode thresholds from a profile on other seeds (`profileJob`, the shipped rule: 100 x the
// largest observed distance, with floors), and then, on held-out seeds:
//  1. counts false rejections: honest segments whose replay on the verifier runtime falls outside the thresholds;
//  2. measures detection of subtle cheats per segment (bench/subtleCheats.ts: one step skipped, the wrong batch
//     for one step, learning rate x 0.9, a cast to half precision), and the gap: the smallest cheat distance over
//     its threshold against the largest honest one;
//  3. tabulates distances per layer type (relative l2: ‖replay - claimed‖ / ‖claimed‖ per tensor), and the
//     scale-free distance ‖replay - claimed‖ / ‖claimed - start‖ over the whole weight vector.
//
// Environment: BENCH_QUICK=1 (a smoke run: few seeds), BENCH_JOBS (comma-separated labels: MLP, CNN, transformer),
// BENCH_OUT (write the results as JSON to this file). Progress on stderr, tables on stdout.
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {runtimeIdString, selectBackend, type BackendName, type RuntimeId} from '../src/ml/backend/index.js'
import type {Checkpoint} from '../src/ml/checkpoint/types.js'
import {initialCheckpoint} from '../src/ml/checkpoint/initialCheckpoint.js'
import {loadLocalJob} from '../src/ml/data/loadLocalJob.js'
import type {JobSpec} from '../src/ml/spec/index.js'
import {checkpointSchedule} from '../src/ml/train/checkpointSchedule.js'
import {TrainingSession} from '../src/ml/train/trainingSession.js'
import {checkpointTensorList, parameterDistances, type CheckpointDistances} from '../src/pol/distances/parameterDistances.js'
import {distanceMetrics, withinThresholds, type Thresholds} from '../src/pol/distances/thresholds.js'
import {defaultFloorRelative, defaultSafetyFactor, deriveThresholds, type Magnitudes, type ReferenceMagnitudes} from '../src/pol/profile/deriveThresholds.js'
import {profileJob, type ProfileSample} from '../src/pol/profile/profileJob.js'
import {raiseToSpread} from '../src/pol/sensitivity/raiseToSpread.js'
import {defaultSpreadRule, segmentSpread} from '../src/pol/sensitivity/segmentSpread.js'
import {trainSegment} from '../src/ml/train/trainSegment.js'
import {cheatSegment, subtleCheats, type SubtleCheat} from './subtleCheats.js'
import {table} from './verificationMatrix.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export type Plan = {
  label: string
  file: string
  prover: BackendName
  verifiers: BackendName[]
  profileSeeds: number
  heldOutSeeds: number
  cheatSeeds: number
  /** Shorter than the fixture (steps, checkpoint interval) where the prover is slow: lavapipe trains the CNN and the transformer at a few steps/s. */
  steps?: {steps: number; interval: number}
}

const quick = process.env.BENCH_QUICK === '1'
export const lavapipePlans: Plan[] = [
  {label: 'MLP', file: 'fixtures/jobs/smoke-mlp.yaml', prover: 'webgpu', verifiers: ['wasm', 'cpu'], profileSeeds: quick ? 2 : 10, heldOutSeeds: quick ? 2 : 50, cheatSeeds: quick ? 1 : 10},
  {label: 'CNN', file: 'fixtures/jobs/mnist-cnn.yaml', prover: 'webgpu', verifiers: ['wasm'], profileSeeds: quick ? 1 : 2, heldOutSeeds: quick ? 1 : 3, cheatSeeds: quick ? 1 : 2, steps: {steps: 100, interval: 25}},
  {label: 'transformer', file: 'fixtures/jobs/sums-transformer.yaml', prover: 'webgpu', verifiers: ['wasm'], profileSeeds: quick ? 1 : 2, heldOutSeeds: quick ? 1 : 2, cheatSeeds: quick ? 1 : 2, steps: {steps: 100, interval: 25}},
]

const log = (line: string) => process.stderr.write(`${line}\n`)
const withSeed = (spec: JobSpec, seed: number): JobSpec => ({...spec, training: {...spec.training, seed: seed % 2 ** 32}})

/** Layer type of a tensor name: `0/dense/kernel` → dense, `2/residual/1/multiHeadAttention/query/kernel` → multiHeadAttention, `m/…` → adam m. */
function layerType(name: string): string {
  if (name.startsWith('m/') || name.startsWith('v/')) return `optimizer ${name[0]}`
  const parts = name.split('/')
  return parts[parts.length - 2 - (parts.at(-2) === 'query' || parts.at(-2) === 'key' || parts.at(-2) === 'value' || parts.at(-2) === 'output' ? 1 : 0)] ?? name
}

async function trainBoundaries(spec: JobSpec, backend: BackendName): Promise<Map<number, Checkpoint>> {
  await selectBackend(backend)
  const schedule = checkpointSchedule(spec)
  const kept = new Map<number, Checkpoint>()
  const session = new TrainingSession(spec)
  try {
    session.load(initialCheckpoint(spec))
    kept.set(0, await session.snapshot())
    await session.run(schedule.at(-1) as number, {stopAt: new Set(schedule), onBoundary: async (step) => void kept.set(step, await session.snapshot())})
  } finally {
    session.dispose()
  }
  return kept
}

async function replay(spec: JobSpec, backend: BackendName, start: Checkpoint, endStep: number): Promise<Checkpoint> {
  await selectBackend(backend)
  return trainSegment(spec, start, endStep)
}

/** Largest distance / threshold over the whole-vector metrics: above 1 is rejected. */
function thresholdRatio(d: CheckpointDistances, thresholds: Thresholds): number {
  return Math.max(...distanceMetrics.map((metric) => (thresholds[metric] ? d.whole[metric] / (thresholds[metric] as number) : 0)))
}

type PairStats = {
  pair: string
  samples: number
  /** Rejected by the shipped rule: beyond the thresholds and beyond twice the segment's spread to the other CPU backend. */
  falseRejections: number
  /** Beyond the profiled thresholds alone (what the rule before the spread rejected). */
  beyondThresholds: number
  maxWhole: Record<string, number>
  maxScaleFree: number
  maxHonestRatio: number
  perLayer: Record<string, number>
  /** One training step from the same state on both runtimes: the largest whole-vector l∞ and relative l2 (what a step-level dispute would have to tolerate). */
  oneStep: {linf: number; relativeL2: number}
}
type CheatStats = {cheat: SubtleCheat; segments: number; detected: number; detectedByThresholds: number; minRatio: number}

/** One honest segment of a held-out seed replayed on a verifier runtime: what judging it needs, without the thresholds. */
export type HonestRecord = {verifier: BackendName; segment: number; distances: CheckpointDistances; spread?: CheckpointDistances | undefined; perLayer: Record<string, number>; oneStep: {linf: number; relativeL2: number}}
/** One subtle cheat's committed end against the first verifier's honest replay of its segment. */
export type CheatRecord = {cheat: SubtleCheat; distances: CheckpointDistances; spread?: CheckpointDistances | undefined}
/** Everything measured on one held-out seed (bench/crossRuntimePool.ts runs seeds in parallel processes). */
export type SeedRecords = {seed: number; honest: HonestRecord[]; cheats: CheatRecord[]}
/** One profile seed's share of the thresholds' inputs. */
export type ProfilePart = {samples: ProfileSample[]; magnitudes: ReferenceMagnitudes}

/** The plan's job: the fixture, shortened where the plan says so. */
export async function planSpec(plan: Plan): Promise<JobSpec> {
  const loaded = await loadLocalJob(path.join(repoRoot, plan.file))
  return plan.steps
    ? {...loaded, training: {...loaded.training, steps: plan.steps.steps, stopAt: undefined}, proof: {...loaded.proof, checkpointInterval: plan.steps.interval}}
    : loaded
}

/** Profile seed `i` of the plan (training seed + 1000 + i): its honest replays on every runtime and its magnitudes. */
export async function profileSeed(plan: Plan, base: JobSpec, i: number): Promise<ProfilePart> {
  const profile = await profileJob({spec: withSeed(base, base.training.seed + 1000 + i), runtimes: [plan.prover, ...plan.verifiers], seeds: 1})
  return {samples: profile.samples, magnitudes: profile.magnitudes}
}

/** Held-out seed `k`: every segment of a prover run replayed on each verifier (and one step on both), and, when `withCheats`, each subtle cheat of every segment. */
export async function heldOutSeed(plan: Plan, base: JobSpec, k: number, withCheats: boolean): Promise<SeedRecords> {
  const spec = withSeed(base, base.training.seed + k)
  const schedule = checkpointSchedule(spec)
  const kept = await trainBoundaries(spec, plan.prover)
  const records: SeedRecords = {seed: k, honest: [], cheats: []}
  for (let s = 0; s + 1 < schedule.length; s++) {
    const start = kept.get(schedule[s] as number) as Checkpoint
    const end = kept.get(schedule[s + 1] as number) as Checkpoint
    const proverStep = await replay(spec, plan.prover, start, start.step + 1)
    let judge: Checkpoint | undefined
    let judgeSpread: CheckpointDistances | undefined
    for (const verifier of plan.verifiers) {
      const verifierStep = await replay(spec, verifier, start, start.step + 1)
      const step = parameterDistances(verifierStep, proverStep).whole
      const replayed = await replay(spec, verifier, start, end.step)
      const spread = await spreadOf(spec, start, replayed, await selectBackend(verifier))
      judge ??= replayed
      judgeSpread ??= spread
      records.honest.push({verifier, segment: s, distances: parameterDistances(replayed, end, start), spread, perLayer: perLayerRelative(replayed, end), oneStep: {linf: step.linf, relativeL2: step.l2 / weightNorm(proverStep)}})
    }
    if (!withCheats || judge === undefined) continue
    for (const cheat of subtleCheats) {
      await selectBackend(plan.prover)
      records.cheats.push({cheat, distances: parameterDistances(judge, await cheatSegment(cheat, spec, start, end.step, end), start), spread: judgeSpread})
    }
  }
  return records
}

/**
 * The segment's spread on the verifier's other CPU backends, as a verifier measures it for a segment beyond the
 * thresholds (judgeTolerance); measured for every segment here, since the thresholds come later. BENCH_SPREAD=0
 * leaves it out (the thresholds alone judge).
 */
async function spreadOf(spec: JobSpec, start: Checkpoint, replayed: Checkpoint, runtime: RuntimeId): Promise<CheckpointDistances | undefined> {
  if (process.env.BENCH_SPREAD === '0') return undefined
  return (await segmentSpread({spec, start, endStep: replayed.step, replayed, runtime, rule: defaultSpreadRule})).distances
}

/** The shipped rule: within the thresholds, or within them raised to twice the segment's spread (when it was measured). */
function judgeRecord(distances: CheckpointDistances, spread: CheckpointDistances | undefined, thresholds: Thresholds): {byThresholds: boolean; ok: boolean; violations: string[]} {
  const alone = withinThresholds(distances, thresholds)
  if (alone.ok || spread === undefined) return {byThresholds: alone.ok, ok: alone.ok, violations: alone.violations}
  const raised = withinThresholds(distances, raiseToSpread(thresholds, spread, defaultSpreadRule.margin))
  return {byThresholds: false, ok: raised.ok, violations: raised.ok ? alone.violations : raised.violations}
}

/** The plan's thresholds from its profile seeds' parts: the shipped rule over their samples and largest magnitudes. */
export function thresholdsOf(parts: ProfilePart[]): Thresholds {
  const magnitudes = parts.map((p) => p.magnitudes).reduce(mergeMagnitudes)
  return deriveThresholds({samples: parts.flatMap((p) => p.samples), magnitudes, safetyFactor: defaultSafetyFactor, floorRelative: defaultFloorRelative}).thresholds
}

const maxOf = (a: Magnitudes | undefined, b: Magnitudes): Magnitudes => (a === undefined ? b : {l1: Math.max(a.l1, b.l1), l2: Math.max(a.l2, b.l2), linf: Math.max(a.linf, b.linf)})

function mergeMagnitudes(a: ReferenceMagnitudes, b: ReferenceMagnitudes): ReferenceMagnitudes {
  const perTensor = {...a.perTensor}
  for (const [name, m] of Object.entries(b.perTensor)) perTensor[name] = maxOf(perTensor[name], m)
  return {whole: maxOf(a.whole, b.whole), perTensor}
}

export type JudgeInput = {plan: Plan; base: JobSpec; runtimes: Record<string, string>; profile: ProfilePart[]; seeds: SeedRecords[]; seconds: number}

/** Judges every held-out record by the profiled thresholds: the result one plan's tables and JSON show. */
export function judgePlan({plan, base, runtimes, profile, seeds, seconds}: JudgeInput) {
  const thresholds = thresholdsOf(profile)
  const pairs = new Map<BackendName, PairStats>(plan.verifiers.map((v) => [v, {pair: `${plan.prover} -> ${v}`, samples: 0, falseRejections: 0, beyondThresholds: 0, maxWhole: {}, maxScaleFree: 0, maxHonestRatio: 0, perLayer: {}, oneStep: {linf: 0, relativeL2: 0}}]))
  const cheats = new Map<SubtleCheat, CheatStats>(subtleCheats.map((c) => [c, {cheat: c, segments: 0, detected: 0, detectedByThresholds: 0, minRatio: Number.POSITIVE_INFINITY}]))
  const rejections: {seed: number; segment: number; verifier: BackendName; violations: string[]}[] = []
  for (const {seed, honest} of seeds)
    for (const record of honest) {
      const verdict = recordHonest(pairs.get(record.verifier) as PairStats, record, thresholds)
      if (!verdict.ok) rejections.push({seed, segment: record.segment, verifier: record.verifier, violations: verdict.violations.slice(0, 8)})
    }
  for (const {cheat, distances, spread} of seeds.flatMap((s) => s.cheats)) {
    const stats = cheats.get(cheat) as CheatStats
    const verdict = judgeRecord(distances, spread, thresholds)
    stats.segments++
    if (!verdict.byThresholds) stats.detectedByThresholds++
    if (!verdict.ok) stats.detected++
    stats.minRatio = Math.min(stats.minRatio, thresholdRatio(distances, thresholds))
  }
  return {label: plan.label, steps: base.training.steps, interval: base.proof.checkpointInterval, runtimes, heldOutSeeds: seeds.length, profileSamples: profile.reduce((n, p) => n + p.samples.length, 0), thresholds: {l1: thresholds.l1, l2: thresholds.l2, linf: thresholds.linf, cosine: thresholds.cosine, update: thresholds.update}, pairs: [...pairs.values()], rejections, cheats: [...cheats.values()], seconds}
}

/** The runtime ids of the plan's backends. */
export async function planRuntimes(plan: Plan): Promise<Record<string, string>> {
  const ids: Record<string, string> = {}
  for (const backend of [plan.prover, ...plan.verifiers]) ids[backend] = runtimeIdString(await selectBackend(backend))
  return ids
}

/** Runs one plan in this process: its profile seeds, then its held-out seeds, logging the running counts. */
export async function benchPlan(plan: Plan) {
  const base = await planSpec(plan)
  const t0 = performance.now()
  log(`${plan.label}: profiling ${plan.prover} against ${plan.verifiers.join(', ')} over ${plan.profileSeeds} seeds`)
  const profile: ProfilePart[] = []
  for (let i = 0; i < plan.profileSeeds; i++) profile.push(await profileSeed(plan, base, i))
  log(`${plan.label}: thresholds ${JSON.stringify(thresholdsOf(profile))}`)
  const runtimes = await planRuntimes(plan)
  const seeds: SeedRecords[] = []
  const judged = () => judgePlan({plan, base, runtimes, profile, seeds, seconds: (performance.now() - t0) / 1000})
  for (let k = 0; k < plan.heldOutSeeds; k++) {
    seeds.push(await heldOutSeed(plan, base, k, k < plan.cheatSeeds))
    // the running counts, so a run cut short still says what it measured
    log(`${plan.label}: seed ${k + 1}/${plan.heldOutSeeds} done (${((performance.now() - t0) / 1000).toFixed(0)} s; ${runningCounts(judged())})`)
  }
  return judged()
}

/** One line of a result's counts so far. */
export function runningCounts(result: CrossRuntimeResult): string {
  const pairs = result.pairs.map((p) => `${p.pair}: ${p.falseRejections}/${p.samples} rejected (${p.beyondThresholds} beyond the thresholds), max distance/threshold ${p.maxHonestRatio.toFixed(4)}`).join('; ')
  const cheats = result.cheats.filter((c) => c.segments > 0).map((c) => `${c.cheat} ${c.detected}/${c.segments}`)
  return cheats.length > 0 ? `${pairs}; cheats caught ${cheats.join(', ')}` : pairs
}

/** ‖v‖₂ in float64. */
function norm(values: Float32Array): number {
  let sum = 0
  for (const x of values) sum += x * x
  return Math.sqrt(sum)
}

/** ‖w‖₂ over every weight of a checkpoint (the optimizer state left out, as in the whole-vector distances). */
function weightNorm(cp: Checkpoint): number {
  return Math.hypot(...cp.weights.map((w) => norm(w.values)))
}

/** Relative l2 per tensor (‖replay − claimed‖ / ‖claimed‖), the largest per layer type. */
function perLayerRelative(replayed: Checkpoint, claimed: Checkpoint): Record<string, number> {
  const norms = new Map(checkpointTensorList(claimed).map((t) => [t.name, norm(t.values)]))
  const perLayer: Record<string, number> = {}
  for (const t of parameterDistances(replayed, claimed).perTensor) {
    const size = norms.get(t.name) ?? 0
    const type = layerType(t.name)
    if (size > 0) perLayer[type] = Math.max(perLayer[type] ?? 0, t.l2 / size)
  }
  return perLayer
}

/** Folds one honest replay into its pair's figures; returns its verdict (a rejection is a false one). */
function recordHonest(stats: PairStats, record: HonestRecord, thresholds: Thresholds): {ok: boolean; violations: string[]} {
  const d = record.distances
  const verdict = judgeRecord(d, record.spread, thresholds)
  stats.samples++
  if (!verdict.byThresholds) stats.beyondThresholds++
  if (!verdict.ok) stats.falseRejections++
  for (const metric of distanceMetrics) stats.maxWhole[metric] = Math.max(stats.maxWhole[metric] ?? 0, d.whole[metric])
  stats.maxScaleFree = Math.max(stats.maxScaleFree, d.update ?? 0)
  stats.maxHonestRatio = Math.max(stats.maxHonestRatio, thresholdRatio(d, thresholds))
  for (const [type, value] of Object.entries(record.perLayer)) stats.perLayer[type] = Math.max(stats.perLayer[type] ?? 0, value)
  stats.oneStep.linf = Math.max(stats.oneStep.linf, record.oneStep.linf)
  stats.oneStep.relativeL2 = Math.max(stats.oneStep.relativeL2, record.oneStep.relativeL2)
  return verdict
}

const e = (x: number | undefined) => (x === undefined ? '-' : x.toExponential(2))

export type CrossRuntimeResult = ReturnType<typeof judgePlan>

/** The tables of one plan's result (stdout of the bench). */
export function crossRuntimeTables(result: CrossRuntimeResult): string {
  const lines = [`\n## ${result.label}: ${result.steps} steps, a checkpoint every ${result.interval} (profile: ${result.profileSamples} replays on other seeds; ${result.heldOutSeeds} held-out seeds; ${result.seconds.toFixed(0)} s)`]
  for (const [backend, id] of Object.entries(result.runtimes)) lines.push(`- ${backend}: ${id}`)
  lines.push(`thresholds (whole vector): l1 ${e(result.thresholds.l1)}, l2 ${e(result.thresholds.l2)}, l∞ ${e(result.thresholds.linf)}, cosine ${e(result.thresholds.cosine)}, update ${e(result.thresholds.update)}\n`)
  lines.push(
    table(
      ['PAIR', 'HONEST REPLAYS', 'FALSE REJECTIONS', 'BEYOND THRESHOLDS', 'MAX L2', 'MAX L∞', 'MAX COSINE', 'MAX ‖Δ‖/‖UPDATE‖', 'MAX DIST/THRESHOLD', 'ONE STEP: L∞', 'ONE STEP: REL L2'],
      result.pairs.map((p) => [p.pair, String(p.samples), String(p.falseRejections), String(p.beyondThresholds), e(p.maxWhole.l2), e(p.maxWhole.linf), e(p.maxWhole.cosine), e(p.maxScaleFree), p.maxHonestRatio.toFixed(3), e(p.oneStep.linf), e(p.oneStep.relativeL2)]),
    ),
  )
  const layers = [...new Set(result.pairs.flatMap((p) => Object.keys(p.perLayer)))].sort()
  lines.push(`\n${table(['LAYER TYPE (rel. l2 per tensor)', ...result.pairs.map((p) => p.pair)], layers.map((layer) => [layer, ...result.pairs.map((p) => e(p.perLayer[layer]))]))}`)
  for (const r of result.rejections) lines.push(`- false rejection: held-out seed ${r.seed}, segment ${r.segment}, ${r.verifier}: ${r.violations.join('; ')}`)
  lines.push(`\n${table(['SUBTLE CHEAT (per segment)', 'SEGMENTS', 'DETECTED', 'BY THE THRESHOLDS ALONE', 'MIN DIST/THRESHOLD'], result.cheats.map((c) => [c.cheat, String(c.segments), `${c.detected}/${c.segments}`, `${c.detectedByThresholds}/${c.segments}`, c.minRatio.toFixed(2)]))}`)
  return lines.join('\n')
}

/** Runs `plans` (those BENCH_JOBS names, if set), prints each plan's tables as it ends and rewrites every result so far to `out`, if given. */
export async function runCrossRuntime(plans: Plan[], out?: string): Promise<CrossRuntimeResult[]> {
  const wanted = process.env.BENCH_JOBS?.split(',').map((label) => label.trim())
  const results: CrossRuntimeResult[] = []
  for (const plan of plans.filter((p) => !wanted || wanted.includes(p.label))) {
    const result = await benchPlan(plan)
    results.push(result)
    console.log(crossRuntimeTables(result))
    if (out) {
      await mkdir(path.dirname(path.resolve(out)), {recursive: true})
      await writeFile(out, `${JSON.stringify(results, null, 2)}\n`)
    }
  }
  return results
}

// run as a script, not when imported (bench/gpu.ts, whose bundle gives every module one import.meta.url)
if (process.argv[1] && path.basename(process.argv[1]) === 'crossRuntime.ts') await runCrossRuntime(lavapipePlans, process.env.BENCH_OUT)
