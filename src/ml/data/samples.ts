import type {Mnist} from './loadMnist.js'

/**
 * What a data set's labels are: class ids (softmax cross-entropy), real values (MSE / MAE), or for a language
 * model the next token at every position (classification per position).
 */
export type DataTask = 'classification' | 'regression' | 'language-model'

/**
 * One split of a data set as training reads it: `count` samples of `featureSize` float32 features each
 * (row-major, read in the model's inputShape), and their targets.
 */
export type Samples = {count: number; featureSize: number; features: Float32Array} & (
  | {task: 'classification'; classes: number; /** labels per sample: 1, or a language model's context */ positions: number; labels: Int32Array}
  | {task: 'regression'; outputs: number; values: Float32Array}
)

/** Values per sample the model's last layer outputs and the loss compares: classes, or regression outputs. */
export function targetSize(samples: Samples): number {
  return samples.task === 'classification' ? samples.classes * samples.positions : samples.outputs
}

/** Writes sample `i`'s target at `row` of `out` ([rows, targetSize]): a one-hot row, or the values. */
export function writeTarget(samples: Samples, i: number, out: Float32Array, row: number): void {
  const size = targetSize(samples)
  if (samples.task === 'classification') {
    const {classes, positions} = samples
    for (let p = 0; p < positions; p++) out[row * size + p * classes + (samples.labels[i * positions + p] as number)] = 1
  } else out.set(samples.values.subarray(i * size, (i + 1) * size), row * size)
}

/** The first `count` samples of a split (views, no copy). */
export function firstSamples(samples: Samples, count: number): Samples {
  const n = Math.min(count, samples.count)
  const features = samples.features.subarray(0, n * samples.featureSize)
  if (samples.task === 'classification') return {...samples, count: n, features, labels: samples.labels.subarray(0, n * samples.positions)}
  return {...samples, count: n, features, values: samples.values.subarray(0, n * samples.outputs)}
}

const fromMnistCache = new WeakMap<Mnist, Samples>()

/** MNIST's samples (and a private job's mapped ones, which keep MNIST's layout) as {@link Samples}: 10 classes. */
export function samplesFromMnist(data: Mnist): Samples {
  const cached = fromMnistCache.get(data)
  if (cached) return cached
  const samples: Samples = {
    task: 'classification',
    classes: 10,
    positions: 1,
    count: data.count,
    featureSize: data.count === 0 ? 0 : data.images.length / data.count,
    features: data.images,
    labels: Int32Array.from(data.labels),
  }
  fromMnistCache.set(data, samples)
  return samples
}

const shardCache = new WeakMap<Samples, Map<string, Samples>>()

/**
 * Shard `shard` of `shards` of a split (a parallel split's task, docs/market.md, section 4): the samples whose
 * index is `shard` modulo `shards`, in their order. Strided rather than in blocks, so a file sorted by label
 * still gives every shard every class. Cached per split, so a verifier's many replays copy it once.
 */
export function shardSamples(samples: Samples, shard: number, shards: number): Samples {
  const key = `${shard}/${shards}`
  const cached = shardCache.get(samples)?.get(key)
  if (cached) return cached
  const rows = Int32Array.from({length: Math.max(0, Math.ceil((samples.count - shard) / shards))}, (_, i) => shard + i * shards)
  const features = pickRows(samples.features, samples.featureSize, rows)
  const result: Samples =
    samples.task === 'classification'
      ? {...samples, count: rows.length, features, labels: pickRows(samples.labels, samples.positions, rows)}
      : {...samples, count: rows.length, features, values: pickRows(samples.values, samples.outputs, rows)}
  const perSplit = shardCache.get(samples) ?? new Map<string, Samples>()
  perSplit.set(key, result)
  shardCache.set(samples, perSplit)
  return result
}

/** Rows `rows` of a row-major array of `width` values per row, copied in that order. */
function pickRows<A extends Float32Array | Int32Array>(source: A, width: number, rows: Int32Array): A {
  const out = new (source.constructor as new (length: number) => A)(rows.length * width)
  for (const [row, i] of rows.entries()) out.set(source.subarray(i * width, (i + 1) * width), row * width)
  return out
}
