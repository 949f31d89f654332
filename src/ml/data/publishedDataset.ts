import type {Hex} from 'viem'

import type {BlobStore} from '../../store/types.js'
import {sha256Hex} from '../../store/sha256.js'
import type {JobSpec} from '../spec/schema.js'
import {buildDataset, type BuildContext} from './buildDataset.js'
import type {Dataset} from './dataset.js'
import {decodeDataset, encodeDataset} from './datasetBlob.js'
import {DataInputError} from './errors.js'
import {BlobDatasets} from './blobDatasets.js'
import {targetSize} from './samples.js'

const published = new BlobDatasets<Dataset>(
  4,
  decodeDataset,
  (hash) =>
    new DataInputError(`data set ${hash} is not loaded in this process`, {
      details: 'A task trains on the data set its spec names: fetch it from the blob store first (loadTaskSpec does).',
      docsPath: 'job-spec.md',
    }),
)

/** Makes a published data set available to training and scoring in this process under its blob hash. */
export function registerDataset(hash: Hex, dataset: Dataset): void {
  published.register(hash, dataset)
}

/** The published data set named `hash`, from this process's cache or else the store (which checks the hash). */
export function fetchDataset(store: Pick<BlobStore, 'get'>, hash: Hex): Promise<Dataset> {
  return published.fetch(store, hash)
}

/** A published data set this process has fetched (loadTaskSpec does); throws when it has not. */
export function publishedDataset(hash: Hex): Dataset {
  return published.require(hash)
}

/** Says which part of the model does not fit the data (input size, output count), or nothing. */
export function checkDataFitsModel(spec: Pick<JobSpec, 'model'>, dataset: Dataset): void {
  const inputs = spec.model.inputShape.reduce((a, b) => a * b, 1)
  if (inputs !== dataset.train.featureSize)
    throw new DataInputError(
      `model.inputShape: expected ${dataset.train.featureSize} values per sample (the data's features [${dataset.featureShape.join(', ')}]), got [${spec.model.inputShape.join(', ')}]`,
    )
  const lastIndex = spec.model.layers.length - 1
  const last = spec.model.layers[lastIndex]
  // per position for a language model: one unit per token of the vocabulary
  const outputs = dataset.train.task === 'classification' ? dataset.train.classes : targetSize(dataset.train)
  const what = dataset.task === 'classification' ? `the ${outputs} classes of dataset.label` : dataset.task === 'language-model' ? `the ${outputs} tokens of the vocabulary` : `the ${outputs} regression outputs`
  if (last?.type === 'dense' && last.units !== outputs) throw new DataInputError(`model.layers.${lastIndex}.units: expected ${outputs} (${what}), got ${last.units}`)
}

export type PublishedDataset = {spec: JobSpec; data: Hex; bytes: number; dataset: Dataset}

/**
 * A job's own data read locally, checked against its model, and registered in this process under the hash it
 * would be published as: for the offline paths (solve --job, profile --job, a dry-run submit). A job on MNIST
 * comes back as it is.
 */
export async function prepareLocalData(spec: JobSpec, context: BuildContext): Promise<PublishedDataset | undefined> {
  if (!('source' in spec.dataset)) return undefined
  const dataset = await buildDataset(spec.dataset, context)
  checkDataFitsModel(spec, dataset)
  const encoded = encodeDataset(dataset)
  const data = sha256Hex(encoded)
  registerDataset(data, dataset)
  return {spec: {...spec, dataset: {...spec.dataset, data}}, data, bytes: encoded.length, dataset}
}

/**
 * The submitter's side of a job on its own data: read and check the data (nothing is stored when it is wrong),
 * store its canonical bytes, and name their hash in the spec (`dataset.data`), so every role trains on exactly
 * those bytes.
 */
export async function publishDataset(spec: JobSpec, context: BuildContext & {store: Pick<BlobStore, 'put'>}): Promise<PublishedDataset> {
  const prepared = await prepareLocalData(spec, context)
  if (!prepared) throw new TypeError('publishDataset: the job trains on MNIST, it has no data file to publish')
  const data = await context.store.put(encodeDataset(prepared.dataset))
  if (data !== prepared.data) throw new TypeError(`publishDataset: the store named the data set ${data}, expected ${prepared.data}`)
  return prepared
}
