import path from 'node:path'

import {permutation, prngStream} from '../prng/prngStream.js'
import type {DataFormat, FileDatasetSpec} from '../spec/schema.js'
import type {Dataset, Normalization} from './dataset.js'
import {DataInputError} from './errors.js'
import {extractColumns, type RawSplit} from './extractColumns.js'
import {readCsv} from './formats/readCsv.js'
import {readIdx} from './formats/readIdx.js'
import {readNpy, readNpz} from './formats/readNpy.js'
import {readParquet} from './formats/readParquet.js'
import type {NdArray, ParsedData} from './formats/table.js'
import {type BuildContext, readSource, type SourceContext} from './readSource.js'
import {buildTextDataset} from './buildTextDataset.js'
import type {Samples} from './samples.js'

export type {BuildContext} from './readSource.js'

/** The format a source is in: declared, or from its extension. */
export function formatOf(dataset: Pick<FileDatasetSpec, 'format' | 'source'>): DataFormat {
  if (dataset.format) return dataset.format
  const name = dataset.source.toLowerCase()
  const byExtension: [RegExp, DataFormat][] = [[/\.csv$/, 'csv'], [/\.npy$/, 'npy'], [/\.npz$/, 'npz'], [/\.(parquet|pq)$/, 'parquet'], [/idx\d-u?byte$|\.idx$/, 'idx'], [/\.txt$/, 'text'], [/\.jsonl$/, 'jsonl']]
  const found = byExtension.find(([pattern]) => pattern.test(name))
  if (!found) throw new DataInputError(`dataset.format: expected csv, npy, npz, parquet, idx, text or jsonl (or a source ending in one of them), got "${path.basename(dataset.source)}"`)
  return found[1]
}

async function parse(format: DataFormat, bytes: Uint8Array, where: string): Promise<ParsedData> {
  switch (format) {
    case 'csv':
      return readCsv(bytes, where)
    case 'parquet':
      return readParquet(bytes, where)
    case 'npz':
      return readNpz(bytes, where)
    case 'npy':
      return readNpy(bytes, where)
    case 'idx':
      return readIdx(bytes, where)
    case 'text':
    case 'jsonl':
      throw new DataInputError(`dataset.task: expected language-model for a ${format} file, got a table task`)
  }
}

async function readSplit(spec: FileDatasetSpec, source: string, labelFile: string | undefined, field: string, context: BuildContext): Promise<RawSplit> {
  const format = formatOf({format: spec.format, source})
  const sourceContext: SourceContext = {baseDir: context.baseDir, maxBytes: spec.maxBytes, store: context.store, field}
  const data = await parse(format, await readSource(source, sourceContext), source)
  let labels: NdArray | undefined
  if (format === 'npy' || format === 'idx') {
    if (labelFile === undefined) throw new DataInputError(`${field.replace(/source$/, 'label')}: expected the labels file of a ${format} data set`)
    const parsed = await parse(format, await readSource(labelFile, {...sourceContext, field: field.replace(/source$/, 'label')}), labelFile)
    labels = [...(parsed as {arrays: Map<string, NdArray>}).arrays.values()][0]
  }
  const features = format === 'npy' || format === 'idx' ? undefined : spec.features
  return extractColumns(data, {features, label: format === 'npy' || format === 'idx' ? undefined : spec.label, where: source}, labels)
}

function take(raw: RawSplit, rows: readonly number[]): RawSplit {
  const size = raw.features.length / raw.count
  const features = new Float32Array(rows.length * size)
  const labels: (string | number)[] = []
  for (const [j, i] of rows.entries()) {
    features.set(raw.features.subarray(i * size, (i + 1) * size), j * size)
    labels.push(...raw.labels.slice(i * raw.labelWidth, (i + 1) * raw.labelWidth))
  }
  return {...raw, count: rows.length, features, labels}
}

/** Train and test rows of one file: a seeded shuffle picks round(fraction * n) test rows; both keep file order. */
function splitByFraction(raw: RawSplit, fraction: number, seed: number): [RawSplit, RawSplit] {
  const testCount = Math.round(raw.count * fraction)
  if (testCount < 1 || testCount >= raw.count)
    throw new DataInputError(`dataset.test.fraction: expected a fraction that leaves both splits at least one of ${raw.count} rows, got ${fraction}`)
  const order = permutation(prngStream(`gensyn/data-split/v1 seed=${seed} size=${raw.count}`), raw.count)
  const isTest = new Uint8Array(raw.count)
  for (const i of order.subarray(0, testCount)) isTest[i] = 1
  const rows = (flag: number) => [...isTest.keys()].filter((i) => isTest[i] === flag)
  return [take(raw, rows(0)), take(raw, rows(1))]
}

function limit(raw: RawSplit, count: number | undefined): RawSplit {
  if (count === undefined || count >= raw.count) return raw
  return take(raw, [...Array(count).keys()])
}

function classIds(spec: FileDatasetSpec, train: RawSplit, test: RawSplit): {names: string[]; ids: (raw: RawSplit, where: string) => Int32Array} {
  const {classes} = spec
  if (train.labelWidth !== 1) throw new DataInputError(`dataset.label: expected one label per sample for a classification, got ${train.labelWidth}`)
  let names: string[]
  if (typeof classes === 'number') names = Array.from({length: classes}, (_, i) => String(i))
  else if (classes) names = classes.map(String)
  else {
    const distinct = [...new Set([...train.labels, ...test.labels].map(String))]
    const numeric = distinct.every((value) => value.trim() !== '' && Number.isFinite(Number(value)))
    names = numeric ? distinct.sort((a, b) => Number(a) - Number(b)) : distinct.sort()
    if (names.length < 2) throw new DataInputError(`dataset.label: expected at least 2 classes, got ${names.length} (${names.join(', ')})`)
  }
  const index = new Map(names.map((name, i) => [name, i]))
  const ids = (raw: RawSplit, where: string) =>
    Int32Array.from(raw.labels, (label, i) => {
      const id = index.get(typeof label === 'number' && Number.isInteger(label) ? String(label) : String(label))
      if (id === undefined) throw new DataInputError(`${where}: row ${i + 1}: expected a label among dataset.classes (${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''}), got ${JSON.stringify(label)}`)
      return id
    })
  return {names, ids}
}

function fitNormalization(values: Float32Array, width: number, type: Normalization['type'], scale: number): Normalization {
  const shift = new Array<number>(width).fill(0)
  const divide = new Array<number>(width).fill(1)
  if (type === 'none') return {type, scale, shift, divide}
  const rows = values.length / width
  for (let c = 0; c < width; c++) {
    let min = Number.POSITIVE_INFINITY
    let max = Number.NEGATIVE_INFINITY
    let sum = 0
    for (let r = 0; r < rows; r++) {
      const v = (values[r * width + c] as number) / scale
      min = Math.min(min, v)
      max = Math.max(max, v)
      sum += v
    }
    const mean = sum / rows
    let squares = 0
    for (let r = 0; r < rows; r++) squares += ((values[r * width + c] as number) / scale - mean) ** 2
    const std = Math.sqrt(squares / rows)
    // a constant column maps to 0 (divide by 1), never to NaN
    shift[c] = type === 'standard' ? mean : min
    divide[c] = (type === 'standard' ? std : max - min) || 1
  }
  return {type, scale, shift, divide}
}

function applyNormalization(values: Float32Array, n: Normalization): Float32Array {
  const width = n.shift.length
  return values.map((v, i) => (v / n.scale - (n.shift[i % width] as number)) / (n.divide[i % width] as number))
}

/**
 * Reads a job's own data set (docs/job-spec.md, "Your own data"): parses the source in its format, picks the
 * feature and label columns, maps class labels to ids, splits off the test rows, cuts to the limits, and scales and
 * normalises with statistics of the training split. Every problem is a one-line {@link DataInputError}.
 */
export async function buildDataset(spec: FileDatasetSpec, context: BuildContext): Promise<Dataset> {
  if (spec.task === 'language-model') return buildTextDataset(spec, context)
  const whole = await readSplit(spec, spec.source, spec.label, 'dataset.source', context)
  let [train, test] =
    'fraction' in spec.test
      ? splitByFraction(whole, spec.test.fraction, spec.test.seed)
      : [whole, await readSplit(spec, spec.test.source, spec.test.label, 'dataset.test.source', context)]
  if (test.featureShape.join(',') !== train.featureShape.join(','))
    throw new DataInputError(`dataset.test.source: expected features of shape [${train.featureShape.join(', ')}] like the training data, got [${test.featureShape.join(', ')}]`)
  train = limit(train, spec.trainLimit)
  test = limit(test, spec.testLimit)
  const features = fitNormalization(train.features, train.features.length / train.count, spec.normalize, spec.scale ?? 1)
  const base = {count: 0, featureSize: train.features.length / train.count}
  const samples = (raw: RawSplit): Pick<Samples, 'count' | 'featureSize' | 'features'> => ({...base, count: raw.count, features: applyNormalization(raw.features, features)})
  if (spec.task === 'classification') {
    const {names, ids} = classIds(spec, train, test)
    const split = (raw: RawSplit, where: string): Samples => ({...samples(raw), task: 'classification', classes: names.length, positions: 1, labels: ids(raw, where)})
    return {task: 'classification', featureShape: train.featureShape, classNames: names, features, train: split(train, spec.source), test: split(test, 'fraction' in spec.test ? spec.source : spec.test.source)}
  }
  const values = (raw: RawSplit, where: string) =>
    Float32Array.from(raw.labels, (label, i) => {
      const value = typeof label === 'number' ? label : Number(label)
      if (!Number.isFinite(value)) throw new DataInputError(`${where}: row ${Math.floor(i / raw.labelWidth) + 1}: expected a finite number as a regression label, got ${JSON.stringify(label)}`)
      return value
    })
  const trainValues = values(train, spec.source)
  const labels = fitNormalization(trainValues, train.labelWidth, spec.normalize, 1)
  const split = (raw: RawSplit, raws: Float32Array): Samples => ({...samples(raw), task: 'regression', outputs: raw.labelWidth, values: applyNormalization(raws, labels)})
  return {
    task: 'regression',
    featureShape: train.featureShape,
    features,
    labels,
    train: split(train, trainValues),
    test: split(test, values(test, 'fraction' in spec.test ? spec.source : spec.test.source)),
  }
}
