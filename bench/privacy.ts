// What the secure mapping layers (docs/privacy.md, issue #7) cost and what they hide, side by side in one run:
// `npm run bench:privacy` (= `npx tsx bench/privacy.ts`). On the wasm backend:
//  1. accuracy: fixtures/jobs/mnist-mlp.yaml and mnist-cnn.yaml trained plain and on each mapping (orthogonal,
//     local, tanh-mix) for N seeds (training seed = the fixture's + s, a fresh key per seed as the protocol
//     would derive one), scored on 10000 test samples (testLimit raised from the fixtures' 1000 for finer
//     resolution; the mapped test set is part of the mapped data set). Per row the mean and sample std over
//     seeds, and the penalty plain - mapped paired by seed, against the issue's target (<= 0.5 points for at
//     least one mapping per model);
//  2. time: training seconds per model and mapping against plain (after one untimed run per model), and the
//     one-off cost of a mapped data set (derive the stages from the key, map the 4000 train and 10000 test
//     samples);
//  3. known-plaintext attacks (src/privacy/attack) on seed 0's key: an attacker holds the first n of 10000
//     training samples both raw and mapped (n = 1, 10, 100, 300, 1000, 3000, 10000) and reconstructs 1000 test
//     samples from their mapped form, with a linear (ridge) and a local (per-pixel 5x5 ridge) inverse against
//     every mapping, and an MLP inverse (n >= 100) against tanh-mix. Scored by normalised MSE (1 = the mean
//     image, 0 = exact) and by how many reconstructions a classifier trained on raw digits (the plain MLP of
//     seed 0) still reads as their label; for reference, how many raw and mapped targets it reads;
//  4. the attack curves as docs/privacy-attack.svg.
// About 5 minutes on 2 cores.
//
// Options: --seeds N (default 3); --quick (a smoke run, under a minute: 1 seed, accuracy on the fixtures' 1000
// test samples, leaks of 10, 100 and 1000 pairs, a 50-step MLP attack, no chart unless --chart); --json FILE
// (every figure as JSON); --chart / --no-chart; --mlp-all (the MLP attacker against every mapping, not only
// tanh-mix: about 2 more minutes). Progress goes to stderr, tables to stdout.
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import type {Hex} from 'viem'

import {runtimeIdString, selectBackend} from '../src/ml/backend/index.js'
import {initialCheckpoint, type Checkpoint} from '../src/ml/checkpoint/index.js'
import {loadMnist, registerMappedDataset, type Mnist} from '../src/ml/data/index.js'
import {evaluateCheckpoint} from '../src/ml/evaluate/index.js'
import {loadJobSpec, type JobSpec} from '../src/ml/spec/index.js'
import {privacyMappings, type PrivacyMapping} from '../src/ml/spec/schema.js'
import {TrainingSession} from '../src/ml/train/trainingSession.js'
import {
  attackCurve,
  defaultMlpSteps,
  linearAttacker,
  localAttacker,
  mlpAttacker,
  recognisedRate,
  type Attacker,
  type AttackPoint,
  type AttackSplit,
} from '../src/privacy/attack/index.js'
import {attackChart} from '../src/privacy/charts/attackChart.js'
import {mapJobData} from '../src/privacy/mapJobData.js'
import {applyMapping} from '../src/privacy/mappingLayers.js'
import {featureCount, mappingStages} from '../src/privacy/mappingStages.js'
import {renderSvg} from '../src/sim/report/charts/renderSvg.js'
import {sha256Hex} from '../src/store/sha256.js'
import {mean, table} from './verificationMatrix.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const fixtures = ['fixtures/jobs/mnist-mlp.yaml', 'fixtures/jobs/mnist-cnn.yaml']
/** The issue's target: a mapping costs at most this many points of test accuracy. */
const penaltyTargetPoints = 0.5
/** The attacker's targets: the first test samples, which it sees only mapped. */
const attackTargets = 1000
/** The MLP attacker needs some pairs to fit 800k weights to; below this it is not run. */
const mlpMinPairs = 100

export type PrivacyBenchOptions = {
  seeds: number
  /** Test samples each model is scored on: 10000 resolves 0.01 points, the fixtures' 1000 only 0.1. */
  accuracyTestLimit: number
  /** Leak sizes n of the attack curves, increasing; the largest is the pool of known training samples mapped. */
  attackSizes: readonly number[]
  /**
   * Mappings the MLP attacker is run against. By default tanh-mix alone: against a linear mapping (orthogonal,
   * local) least squares is the exact inverse, and the MLP's training time would double the bench's.
   */
  mlpMappings: readonly PrivacyMapping[]
  mlpSteps: (pairs: number) => number
}

export const defaultOptions: PrivacyBenchOptions = {
  seeds: 3,
  accuracyTestLimit: 10000,
  attackSizes: [1, 10, 100, 300, 1000, 3000, 10000],
  mlpMappings: ['tanh-mix'],
  mlpSteps: defaultMlpSteps,
}
export const quickOptions: PrivacyBenchOptions = {seeds: 1, accuracyTestLimit: 1000, attackSizes: [10, 100, 1000], mlpMappings: ['tanh-mix'], mlpSteps: () => 50}

type Variant = 'plain' | PrivacyMapping
const variants: readonly Variant[] = ['plain', ...privacyMappings]

/** One model trained on one variant of the data, per seed. */
export type AccuracyRow = {model: string; variant: Variant; accuracy: number[]; trainSeconds: number[]}
/**
 * The one-off cost of a mapped data set: per seed, deriving the stages from the key and mapping every train
 * and test sample (mapJobData); and the derivation alone, timed once (seed 0's key).
 */
export type MappingCostRow = {mapping: PrivacyMapping; samples: number; seconds: number[]; deriveSeconds: number}
export type AttackRow = {mapping: PrivacyMapping; ciphertextRecognised: number; points: AttackPoint[]}

export type PrivacyBenchReport = {
  runtime: string
  seeds: number
  accuracyTestLimit: number
  accuracy: AccuracyRow[]
  mappingCost: MappingCostRow[]
  attack: {
    trainPool: number
    targets: number
    /** Pixels not 0 in some training sample of the pool: the dimension a linear attacker has to pin down. */
    effectiveFeatures: number
    rawRecognised: number
    rows: AttackRow[]
  }
}

/** A fresh mapping key per seed, as a submitter's would be per job (deriveMappingKey hashes a block in). */
const keyFor = (seed: number): Hex => sha256Hex(new TextEncoder().encode(`gensyn/bench/privacy/key seed=${seed}`))
/**
 * Stands in for the mapped data set's blob hash (the bench never stores the blob). One per mapping, so each
 * seed's data set replaces the last one's in memory.
 */
const dataSlotFor = (mapping: PrivacyMapping): Hex => sha256Hex(new TextEncoder().encode(`gensyn/bench/privacy/data mapping=${mapping}`))

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

/** Trains a spec from its initial checkpoint, timing the steps alone, and scores it on its test samples. */
async function trainAndScore(spec: JobSpec): Promise<{accuracy: number; seconds: number; checkpoint: Checkpoint}> {
  const session = new TrainingSession(spec)
  try {
    session.load(initialCheckpoint(spec))
    const started = performance.now()
    await session.run(spec.training.steps)
    const seconds = (performance.now() - started) / 1000
    const checkpoint = (await session.snapshot())
    const {testAccuracy} = await evaluateCheckpoint({spec, checkpoint})
    return {accuracy: testAccuracy, seconds, checkpoint}
  } finally {
    session.dispose()
  }
}

function attackersFor(mapping: PrivacyMapping, options: PrivacyBenchOptions): {attacker: () => Attacker; sizes: readonly number[]}[] {
  return [
    {attacker: () => linearAttacker(), sizes: options.attackSizes},
    {attacker: () => localAttacker(), sizes: options.attackSizes},
    ...(options.mlpMappings.includes(mapping) ? [{attacker: () => mlpAttacker({steps: options.mlpSteps}), sizes: options.attackSizes.filter((n) => n >= mlpMinPairs)}] : []),
  ]
}

function countEffectiveFeatures(raw: Mnist): number {
  let used = 0
  for (let f = 0; f < featureCount; f++)
    for (let t = 0; t < raw.count; t++)
      if ((raw.images[t * featureCount + f] as number) !== 0) {
        used++
        break
      }
  return used
}

export async function benchPrivacy(options: PrivacyBenchOptions = defaultOptions): Promise<PrivacyBenchReport> {
  const runtime = runtimeIdString(await selectBackend('wasm'))
  const models = await Promise.all(
    fixtures.map(async (file) => {
      const spec = await loadJobSpec(path.resolve(repoRoot, file))
      return {...spec, dataset: {...spec.dataset, testLimit: options.accuracyTestLimit}}
    }),
  )
  const dataset = (models[0] as JobSpec).dataset
  if (!('name' in dataset)) throw new Error(`bench/privacy: expected MNIST fixtures, got ${JSON.stringify(dataset)}`)
  // Both models train on the same mapped data set per seed and mapping (a submitter would map each job's
  // data under its own key): it halves the mapping work, and needs the fixtures to read the same samples.
  if (models.some((spec) => JSON.stringify(spec.dataset) !== JSON.stringify(dataset)))
    throw new Error(`bench/privacy: expected ${fixtures.join(' and ')} to share their dataset, got ${models.map((spec) => JSON.stringify(spec.dataset)).join(' and ')}`)

  // One untimed full run per model first: the first run of a process is ~2x slower (kernels compile, the JIT
  // warms up; 20 steps were not enough), which would bill the plain rows of seed 0 for it.
  for (const spec of models) await trainAndScore(spec)
  const accuracy: AccuracyRow[] = models.flatMap((spec) => variants.map((variant) => ({model: spec.name, variant, accuracy: [], trainSeconds: []})))
  const mappingCost: MappingCostRow[] = privacyMappings.map((mapping) => ({mapping, samples: dataset.trainLimit + dataset.testLimit, seconds: [], deriveSeconds: Number.NaN}))
  let classifier: {spec: JobSpec; checkpoint: Checkpoint} | undefined
  for (let seed = 0; seed < options.seeds; seed++) {
    const key = keyFor(seed)
    for (const variant of variants) {
      let privacy: JobSpec['privacy']
      if (variant !== 'plain') {
        const started = performance.now()
        const data = mapJobData({dataset}, variant, key)
        mappingCost.find((row) => row.mapping === variant)?.seconds.push((performance.now() - started) / 1000)
        registerMappedDataset(dataSlotFor(variant), data)
        privacy = {mapping: variant, data: dataSlotFor(variant)}
      }
      for (const base of models) {
        const spec: JobSpec = {...base, training: {...base.training, seed: base.training.seed + seed}, ...(privacy ? {privacy} : {})}
        const result = await trainAndScore(spec)
        const row = accuracy.find((r) => r.model === spec.name && r.variant === variant) as AccuracyRow
        row.accuracy.push(result.accuracy)
        row.trainSeconds.push(result.seconds)
        if (seed === 0 && variant === 'plain' && base === models[0]) classifier = {spec, checkpoint: result.checkpoint}
        progress(`seed ${seed} ${spec.name} ${variant}: accuracy ${(100 * result.accuracy).toFixed(2)}%, ${result.seconds.toFixed(1)} s`)
      }
    }
  }
  if (!classifier) throw new Error('bench/privacy: no plain classifier trained (seeds must be >= 1)')

  const rawKnown = loadMnist({split: 'train', limit: Math.max(...options.attackSizes)})
  const rawTargets = loadMnist({split: 'test', limit: attackTargets})
  const attackRows: AttackRow[] = []
  for (const mapping of privacyMappings) {
    const started = performance.now()
    const stages = mappingStages(mapping, keyFor(0))
    ;(mappingCost.find((row) => row.mapping === mapping) as MappingCostRow).deriveSeconds = (performance.now() - started) / 1000
    const known: AttackSplit = {raw: rawKnown, mapped: applyMapping(stages, rawKnown)}
    const targets: AttackSplit = {raw: rawTargets, mapped: applyMapping(stages, rawTargets)}
    const points: AttackPoint[] = []
    for (const {attacker, sizes} of attackersFor(mapping, options)) {
      const curve = await attackCurve({attacker: attacker(), known, targets, sizes, classifier})
      for (const point of curve) progress(`attack ${mapping} ${point.attacker} n=${point.pairs}: normalised MSE ${point.normalisedMse.toFixed(4)}, recognised ${(100 * point.recognised).toFixed(1)}%, ${point.seconds.toFixed(1)} s`)
      points.push(...curve)
    }
    attackRows.push({mapping, ciphertextRecognised: recognisedRate(classifier, targets.mapped), points})
  }
  return {
    runtime,
    seeds: options.seeds,
    accuracyTestLimit: options.accuracyTestLimit,
    accuracy,
    mappingCost,
    attack: {
      trainPool: rawKnown.count,
      targets: attackTargets,
      effectiveFeatures: countEffectiveFeatures(rawKnown),
      rawRecognised: recognisedRate(classifier, rawTargets),
      rows: attackRows,
    },
  }
}

/** Sample standard deviation (n - 1); NaN for fewer than two values. */
const sampleStd = (values: readonly number[]): number => {
  if (values.length < 2) return Number.NaN
  const m = mean(values)
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1))
}
const plusMinus = (values: readonly number[], digits: number): string => {
  const std = sampleStd(values)
  return `${mean(values).toFixed(digits)} ± ${Number.isNaN(std) ? 'n/a' : std.toFixed(digits)}`
}
const percentPoints = (fractions: readonly number[]): number[] => fractions.map((f) => 100 * f)

/** Per-seed penalties of a mapped row against its model's plain row, in points (positive: the mapping costs accuracy). */
function penalties(report: PrivacyBenchReport, row: AccuracyRow): number[] {
  const plain = report.accuracy.find((r) => r.model === row.model && r.variant === 'plain') as AccuracyRow
  return row.accuracy.map((a, i) => 100 * ((plain.accuracy[i] as number) - a))
}

export function accuracyTable(report: PrivacyBenchReport): string {
  const rows = report.accuracy.map((row) => {
    if (row.variant === 'plain') return [row.model, row.variant, plusMinus(percentPoints(row.accuracy), 2), '-', '-']
    const penalty = penalties(report, row)
    return [row.model, row.variant, plusMinus(percentPoints(row.accuracy), 2), plusMinus(penalty, 2), mean(penalty) <= penaltyTargetPoints ? 'yes' : 'NO']
  })
  const verdicts = [...new Set(report.accuracy.map((row) => row.model))].map((model) => {
    const meeting = report.accuracy.filter((row) => row.model === model && row.variant !== 'plain' && mean(penalties(report, row)) <= penaltyTargetPoints)
    return meeting.length > 0
      ? `${model}: target met (mean penalty <= ${penaltyTargetPoints} points) by ${meeting.map((row) => row.variant).join(', ')}`
      : `${model}: target NOT met by any mapping`
  })
  return [table(['model', 'data', 'test accuracy %', 'penalty (points)', `<= ${penaltyTargetPoints}`], rows), ...verdicts].join('\n')
}

export function timeTables(report: PrivacyBenchReport): string {
  const training = report.accuracy.map((row) => {
    const plain = report.accuracy.find((r) => r.model === row.model && r.variant === 'plain') as AccuracyRow
    return [row.model, row.variant, mean(row.trainSeconds).toFixed(2), (mean(row.trainSeconds) / mean(plain.trainSeconds)).toFixed(2)]
  })
  const mapping = report.mappingCost.map((row) => [row.mapping, String(row.samples), plusMinus(row.seconds, 2), row.deriveSeconds.toFixed(2)])
  return [
    table(['model', 'data', 'train s', 'x plain'], training),
    '',
    'one-off cost of a mapped data set (derive the stages from the key, map every train and test sample), seconds:',
    table(['mapping', 'samples', 'data set', 'of which stages'], mapping),
  ].join('\n')
}

/** A table of one attack metric: a row per mapping and attacker, a column per leak size. */
function attackMetricTable(report: PrivacyBenchReport, metric: (point: AttackPoint) => string): string {
  const sizes = [...new Set(report.attack.rows.flatMap((row) => row.points.map((p) => p.pairs)))].sort((a, b) => a - b)
  const rows = report.attack.rows.flatMap((row) =>
    [...new Set(row.points.map((p) => p.attacker))].map((attacker) => [
      `${row.mapping} / ${attacker}`,
      ...sizes.map((n) => {
        const point = row.points.find((p) => p.attacker === attacker && p.pairs === n)
        return point ? metric(point) : '-'
      }),
    ]),
  )
  return table(['mapping / attacker', ...sizes.map((n) => `n=${n}`)], rows)
}

/** The fewest leaked pairs with which an attacker meets `good`, or '> max' when it never does. */
function fewestPairs(points: readonly AttackPoint[], good: (point: AttackPoint) => boolean): string {
  const first = points.find(good)
  if (first) return String(first.pairs)
  const largest = points.at(-1)
  return largest ? `> ${largest.pairs}` : '-'
}

export function attackTables(report: PrivacyBenchReport): string {
  const {attack} = report
  const readable = 0.9 * attack.rawRecognised
  const summary = attack.rows.flatMap((row) =>
    [...new Set(row.points.map((p) => p.attacker))].map((attacker) => {
      const curve = row.points.filter((p) => p.attacker === attacker)
      return [`${row.mapping} / ${attacker}`, fewestPairs(curve, (p) => p.normalisedMse < 0.01), fewestPairs(curve, (p) => p.recognised >= readable)]
    }),
  )
  return [
    `normalised MSE of the reconstructions (1 = the mean training image, 0 = exact), ${attack.targets} targets, n known pairs:`,
    attackMetricTable(report, (p) => p.normalisedMse.toFixed(4)),
    '',
    `recognised %: reconstructions a plain MLP (trained on raw digits) reads as their label. References: raw targets ${(100 * attack.rawRecognised).toFixed(1)}%; mapped targets fed to it as they are (ciphertext only): ${attack.rows.map((row) => `${row.mapping} ${(100 * row.ciphertextRecognised).toFixed(1)}%`).join(', ')}`,
    attackMetricTable(report, (p) => (100 * p.recognised).toFixed(1)),
    '',
    `fewest pairs to break a mapping (pixels not always 0 in the ${attack.trainPool} known samples: ${attack.effectiveFeatures} of ${featureCount}):`,
    table(['mapping / attacker', 'NMSE < 0.01', `recognised >= ${(100 * readable).toFixed(1)}% (90% of raw)`], summary),
  ].join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values} = parseArgs({
    options: {
      seeds: {type: 'string'},
      quick: {type: 'boolean', default: false},
      json: {type: 'string'},
      chart: {type: 'boolean'},
      'no-chart': {type: 'boolean', default: false},
      'mlp-all': {type: 'boolean', default: false},
    },
  })
  const base = values.quick ? quickOptions : defaultOptions
  const seeds = values.seeds === undefined ? base.seeds : Number(values.seeds)
  if (!Number.isInteger(seeds) || seeds < 1) throw new Error(`--seeds: expected an integer >= 1, got ${values.seeds}`)
  const writeChart = !values['no-chart'] && (values.chart ?? !values.quick)
  const started = performance.now()
  const report = await benchPrivacy({...base, seeds, ...(values['mlp-all'] ? {mlpMappings: privacyMappings} : {})})
  const seconds = (performance.now() - started) / 1000
  console.log(`privacy mappings on ${report.runtime}, ${report.seeds} seed(s), ${seconds.toFixed(0)} s\n`)
  console.log(`1. test accuracy on ${report.accuracyTestLimit} samples (mean ± sample std over seeds); penalty = plain - mapped, paired by seed`)
  console.log(accuracyTable(report))
  console.log('\n2. time: training seconds (mean over seeds) and the ratio to plain')
  console.log(timeTables(report))
  console.log(`\n3. known-plaintext attacks (seed 0's key; first n of ${report.attack.trainPool} training samples known raw and mapped)`)
  console.log(attackTables(report))
  if (writeChart) {
    const file = path.join(repoRoot, 'docs', 'privacy-attack.svg')
    await writeFile(file, await renderSvg(attackChart(report.attack.rows)))
    console.log(`\nchart: ${path.relative(repoRoot, file)}`)
  }
  if (values.json) {
    await mkdir(path.dirname(path.resolve(values.json)), {recursive: true})
    await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`)
    console.log(`json: ${values.json}`)
  }
}
