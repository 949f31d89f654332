import {canonicalJson} from '../../store/canonicalJson.js'
import type {Dataset, Normalization} from './dataset.js'
import {DataInputError} from './errors.js'
import type {Samples} from './samples.js'

const magic = 'gensyn-dataset/v1'

type Header = {
  format: typeof magic
  task: Dataset['task']
  featureShape: number[]
  classNames?: string[]
  outputs?: number
  features: Normalization
  labels?: Normalization
  train: number
  test: number
}

function float32le(values: Float32Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(values.length * 4)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i] as number, true)
  return bytes
}

function int32le(values: Int32Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(values.length * 4)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < values.length; i++) view.setInt32(i * 4, values[i] as number, true)
  return bytes
}

/**
 * The canonical bytes of a published data set, what its hash covers (docs/job-spec.md, "Your own data"):
 * u32le header length, the header (canonical JSON: format, task, feature shape, class names or outputs, the
 * normalisations, split sizes), then for train and test: features (float32 LE, count x featureSize) and targets
 * (classification: int32 LE class ids; regression: float32 LE, count x outputs).
 */
export function encodeDataset(dataset: Dataset): Uint8Array {
  const {train, test} = dataset
  const header: Header = {
    format: magic,
    task: dataset.task,
    featureShape: dataset.featureShape,
    features: dataset.features,
    train: train.count,
    test: test.count,
    ...(dataset.classNames ? {classNames: dataset.classNames} : {}),
    ...(train.task === 'regression' ? {outputs: train.outputs} : {}),
    ...(dataset.labels ? {labels: dataset.labels} : {}),
  }
  const headerBytes = new TextEncoder().encode(canonicalJson(header))
  const length = new Uint8Array(4)
  new DataView(length.buffer).setUint32(0, headerBytes.length, true)
  const parts: Uint8Array<ArrayBuffer>[] = [length, headerBytes]
  for (const split of [train, test]) parts.push(float32le(split.features), split.task === 'classification' ? int32le(split.labels) : float32le(split.values))
  return Buffer.concat(parts)
}

/** Reads a published data set back; any inconsistency is a one-line error naming what was expected. */
export function decodeDataset(bytes: Uint8Array): Dataset {
  const fail = (what: string) => new DataInputError(`published data set: ${what}`)
  if (bytes.length < 4) throw fail('expected a header, got fewer than 4 bytes')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerLength = view.getUint32(0, true)
  let header: Header
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as Header
  } catch (error) {
    throw fail(`expected a JSON header, got unreadable bytes (${(error as Error).message})`)
  }
  if (header.format !== magic) throw fail(`expected format ${magic}, got ${JSON.stringify(header.format)}`)
  const featureSize = header.featureShape.reduce((a, b) => a * b, 1)
  const classes = header.classNames?.length ?? 0
  // a language model predicts the next token at every position of its context
  const positions = header.task === 'language-model' ? featureSize : 1
  const outputs = header.outputs ?? 0
  if (header.task === 'regression' ? outputs < 1 : classes < 2) throw fail(`expected class names or outputs for a ${header.task}`)
  let offset = 4 + headerLength
  const floats = (count: number) => {
    if (offset + count * 4 > bytes.length) throw fail('the blob ends early')
    const out = new Float32Array(count)
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(offset + i * 4, true)
    offset += count * 4
    return out
  }
  const ints = (count: number) => {
    if (offset + count * 4 > bytes.length) throw fail('the blob ends early')
    const out = new Int32Array(count)
    for (let i = 0; i < count; i++) {
      out[i] = view.getInt32(offset + i * 4, true)
      if ((out[i] as number) < 0 || (out[i] as number) >= classes) throw fail(`expected class ids in [0, ${classes}), got ${out[i]}`)
    }
    offset += count * 4
    return out
  }
  const split = (count: number): Samples => {
    const features = floats(count * featureSize)
    if (header.task !== 'regression') return {task: 'classification', classes, positions, count, featureSize, features, labels: ints(count * positions)}
    return {task: 'regression', outputs, count, featureSize, features, values: floats(count * outputs)}
  }
  const train = split(header.train)
  const test = split(header.test)
  if (offset !== bytes.length) throw fail(`expected ${offset} bytes, got ${bytes.length}`)
  return {
    task: header.task,
    featureShape: header.featureShape,
    ...(header.classNames ? {classNames: header.classNames} : {}),
    features: header.features,
    ...(header.labels ? {labels: header.labels} : {}),
    train,
    test,
  }
}
