import {permutation, prngStream} from '../prng/prngStream.js'
import type {FileDatasetSpec} from '../spec/schema.js'
import type {BuildContext} from './readSource.js'
import type {Dataset} from './dataset.js'
import {DataInputError} from './errors.js'
import {readSource} from './readSource.js'
import type {Samples} from './samples.js'

type Vocabulary = {names: string[]; encode: (text: string, where: string) => Int32Array}

/** The text of a source: the file itself (text), or each line's field joined by newlines (jsonl). */
async function readText(spec: FileDatasetSpec, source: string, field: string, context: BuildContext): Promise<string> {
  const bytes = await readSource(source, {baseDir: context.baseDir, maxBytes: spec.maxBytes, store: context.store, field})
  let text: string
  try {
    text = new TextDecoder('utf-8', {fatal: true}).decode(bytes)
  } catch {
    throw new DataInputError(`${source}: expected UTF-8 text`)
  }
  const format = spec.format ?? (source.toLowerCase().endsWith('.jsonl') ? 'jsonl' : 'text')
  if (format !== 'jsonl') return text
  const key = typeof spec.features === 'string' ? spec.features : 'text'
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      let value: unknown
      try {
        value = (JSON.parse(line) as Record<string, unknown>)[key]
      } catch (error) {
        throw new DataInputError(`${source}: line ${i + 1}: expected a JSON object, got ${(error as Error).message}`)
      }
      if (typeof value !== 'string') throw new DataInputError(`${source}: line ${i + 1}: expected a string field "${key}", got ${JSON.stringify(value)}`)
      return value
    })
    .join('\n')
}

function tokenTable(names: string[]): Vocabulary {
  const ids = new Map(names.map((name, i) => [name, i]))
  return {
    names,
    encode(text, where) {
      const chars = Array.from(text)
      return Int32Array.from(chars, (char, i) => {
        const id = ids.get(char)
        if (id === undefined) {
          const line = chars.slice(0, i).filter((c) => c === '\n').length + 1
          throw new DataInputError(`dataset.vocabulary: ${where} has ${JSON.stringify(char)} (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) on line ${line}, which the vocabulary does not cover`)
        }
        return id
      })
    },
  }
}

async function vocabularyOf(spec: FileDatasetSpec, trainText: string, context: BuildContext): Promise<Vocabulary> {
  const {vocabulary} = spec
  if (vocabulary === 'bytes')
    return {names: Array.from({length: 256}, (_, b) => String.fromCharCode(b)), encode: (text) => Int32Array.from(new TextEncoder().encode(text))}
  if (vocabulary === 'chars') return tokenTable([...new Set(Array.from(trainText))].sort())
  const file = await readSource(vocabulary.source, {baseDir: context.baseDir, maxBytes: spec.maxBytes, store: context.store, field: 'dataset.vocabulary.source'})
  const names = new TextDecoder().decode(file).split('\n').filter((line, i, all) => line !== '' || i < all.length - 1)
  const tokens = names.map((name) => (name === '\\n' ? '\n' : name))
  const long = tokens.find((token) => Array.from(token).length !== 1)
  if (long !== undefined) throw new DataInputError(`dataset.vocabulary.source: expected one character per line (\\n for a newline), got ${JSON.stringify(long)}`)
  if (new Set(tokens).size !== tokens.length) throw new DataInputError('dataset.vocabulary.source: expected each character once')
  return tokenTable(tokens)
}

/** Windows of context + 1 tokens, one every `context` tokens: x the first context, y the same shifted by one. */
function windows(tokens: Int32Array, context: number): {x: Int32Array; y: Int32Array; count: number} {
  const count = Math.max(0, Math.floor((tokens.length - 1) / context))
  const x = new Int32Array(count * context)
  const y = new Int32Array(count * context)
  for (let w = 0; w < count; w++) {
    x.set(tokens.subarray(w * context, w * context + context), w * context)
    y.set(tokens.subarray(w * context + 1, w * context + context + 1), w * context)
  }
  return {x, y, count}
}

function samplesOf(x: Int32Array, y: Int32Array, rows: readonly number[], context: number, classes: number): Samples {
  const features = new Float32Array(rows.length * context)
  const labels = new Int32Array(rows.length * context)
  for (const [j, i] of rows.entries()) {
    features.set(x.subarray(i * context, (i + 1) * context), j * context)
    labels.set(y.subarray(i * context, (i + 1) * context), j * context)
  }
  return {task: 'classification', classes, positions: context, count: rows.length, featureSize: context, features, labels}
}

/**
 * A language-model data set (docs/job-spec.md, "Text"): the text's tokens (UTF-8 bytes, characters, or a
 * vocabulary file's characters), cut into windows of `context` + 1 tokens; each sample's features are the first
 * `context` token ids and its labels the next token at every position. The test split is a seeded fraction of the
 * windows or a file of its own.
 */
export async function buildTextDataset(spec: FileDatasetSpec, context: BuildContext): Promise<Dataset> {
  const length = spec.context as number
  const trainText = await readText(spec, spec.source, 'dataset.source', context)
  const vocabulary = await vocabularyOf(spec, trainText, context)
  const classes = vocabulary.names.length
  const all = windows(vocabulary.encode(trainText, spec.source), length)
  if (all.count < 2) throw new DataInputError(`${spec.source}: expected at least 2 windows of dataset.context + 1 (${length + 1}) tokens, got ${all.count}`)
  let train: Samples
  let test: Samples
  if ('fraction' in spec.test) {
    const testCount = Math.round(all.count * spec.test.fraction)
    if (testCount < 1 || testCount >= all.count) throw new DataInputError(`dataset.test.fraction: expected a fraction that leaves both splits at least one of ${all.count} windows, got ${spec.test.fraction}`)
    const order = permutation(prngStream(`gensyn/data-split/v1 seed=${spec.test.seed} size=${all.count}`), all.count)
    const isTest = new Uint8Array(all.count)
    for (const i of order.subarray(0, testCount)) isTest[i] = 1
    const rows = (flag: number) => [...isTest.keys()].filter((i) => isTest[i] === flag)
    train = samplesOf(all.x, all.y, rows(0).slice(0, spec.trainLimit), length, classes)
    test = samplesOf(all.x, all.y, rows(1).slice(0, spec.testLimit), length, classes)
  } else {
    const testText = await readText(spec, spec.test.source, 'dataset.test.source', context)
    const held = windows(vocabulary.encode(testText, spec.test.source), length)
    const first = (count: number, limit: number | undefined) => [...Array(Math.min(count, limit ?? count)).keys()]
    train = samplesOf(all.x, all.y, first(all.count, spec.trainLimit), length, classes)
    test = samplesOf(held.x, held.y, first(held.count, spec.testLimit), length, classes)
  }
  const identity = {type: 'none' as const, scale: 1, shift: new Array<number>(length).fill(0), divide: new Array<number>(length).fill(1)}
  return {task: 'language-model', featureShape: [length], classNames: vocabulary.names, features: identity, train, test}
}
