import type {Hex} from 'viem'
import {sha256Hex} from '../../store/sha256.js'
import type {BlobStore} from '../../store/types.js'
import type {PrivacyMapping} from '../spec/schema.js'
import {DatasetError, type Mnist} from './loadMnist.js'
import {BlobDatasets} from './blobDatasets.js'

/**
 * A private job's published data (docs/privacy.md): the submitter's keyed mapping applied to the first
 * `trainLimit` training and `testLimit` test samples, with their labels. Solvers and verifiers train, replay
 * and evaluate on it; nobody but the submitter holds the raw samples or the key.
 */
export type MappedDataset = {
  mapping: PrivacyMapping
  /** Features per sample (784 for MNIST: the mapping's output, read in the model's inputShape). */
  features: number
  train: Mnist
  test: Mnist
}

const magic = 'gensyn-mapped-dataset/v1'

/**
 * The blob: u32le header length, the header (JSON: format, mapping, features, train and test counts), then
 * train features (float32 little-endian, count x features), train labels (uint8), test features, test labels.
 */
export function encodeMappedDataset(dataset: MappedDataset): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify({format: magic, mapping: dataset.mapping, features: dataset.features, train: dataset.train.count, test: dataset.test.count}),
  )
  const parts: Uint8Array[] = [header]
  for (const split of [dataset.train, dataset.test]) {
    if (split.images.length !== split.count * dataset.features || split.labels.length !== split.count)
      throw new DatasetError(`mapped dataset: expected ${split.count} samples of ${dataset.features} features, got ${split.images.length} values and ${split.labels.length} labels`)
    const features = new Uint8Array(split.images.length * 4)
    const view = new DataView(features.buffer)
    for (let i = 0; i < split.images.length; i++) view.setFloat32(i * 4, split.images[i] as number, true)
    parts.push(features, split.labels)
  }
  const length = new Uint8Array(4)
  new DataView(length.buffer).setUint32(0, header.length, true)
  return Buffer.concat([length, ...parts])
}

export function decodeMappedDataset(bytes: Uint8Array): MappedDataset {
  const fail = (what: string) => new DatasetError(`mapped dataset: ${what}`)
  if (bytes.length < 4) throw fail('expected a header, got fewer than 4 bytes')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerLength = view.getUint32(0, true)
  let header: {format?: unknown; mapping?: unknown; features?: unknown; train?: unknown; test?: unknown}
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength)))
  } catch (error) {
    throw fail(`expected a JSON header, got unreadable bytes (${(error as Error).message})`)
  }
  if (header.format !== magic) throw fail(`expected format ${magic}, got ${JSON.stringify(header.format)}`)
  const counts = [header.features, header.train, header.test]
  if (!counts.every((n) => Number.isInteger(n) && (n as number) > 0)) throw fail(`expected positive integer features, train and test counts, got ${JSON.stringify(counts)}`)
  const features = header.features as number
  let offset = 4 + headerLength
  const readSplit = (count: number): Mnist => {
    const images = new Float32Array(count * features)
    if (offset + images.length * 4 + count > bytes.length) throw fail(`expected ${count} samples of ${features} features, the blob ends early`)
    for (let i = 0; i < images.length; i++) images[i] = view.getFloat32(offset + i * 4, true)
    offset += images.length * 4
    const labels = Uint8Array.from(bytes.subarray(offset, offset + count))
    offset += count
    for (const [i, label] of labels.entries()) if (label > 9) throw fail(`expected labels 0..9, got ${label} at index ${i}`)
    return {images, labels, count}
  }
  const train = readSplit(header.train as number)
  const test = readSplit(header.test as number)
  if (offset !== bytes.length) throw fail(`expected ${offset} bytes, got ${bytes.length}`)
  return {mapping: header.mapping as PrivacyMapping, features, train, test}
}

/** The mapped data sets this process holds, most recently used last (loadTaskSpec fetches an evicted one again). */
export const mappedDatasetsKept = 4
const mapped = new BlobDatasets<MappedDataset>(
  mappedDatasetsKept,
  decodeMappedDataset,
  (hash) =>
    new DatasetError(`mapped data set ${hash} is not loaded in this process`, {
      details: 'A private task trains on the mapped data its spec names: fetch it from the blob store first (loadTaskSpec does).',
      docsPath: 'privacy.md',
    }),
)

/** Makes a mapped data set available to training and evaluation in this process under its blob hash. */
export function registerMappedDataset(hash: Hex, dataset: MappedDataset): void {
  mapped.register(hash, dataset)
}

/** The mapped data set named `hash`, from this process's cache or else the store (which checks the hash). */
export function fetchMappedDataset(store: Pick<BlobStore, 'get'>, hash: Hex): Promise<MappedDataset> {
  return mapped.fetch(store, hash)
}

/** A registered mapped data set; throws when this process has not fetched it (see {@link fetchMappedDataset}). */
export function mappedDataset(hash: Hex): MappedDataset {
  return mapped.require(hash)
}

/** The blob hash of an encoded data set (what a private task spec's privacy.data names). */
export function mappedDatasetHash(bytes: Uint8Array): Hex {
  return sha256Hex(bytes)
}
