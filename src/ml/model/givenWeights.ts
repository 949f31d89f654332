import type {Hex} from 'viem'

import type {BlobStore} from '../../store/types.js'
import type {CheckpointTensor} from '../checkpoint/types.js'
import {BlobDatasets} from '../data/blobDatasets.js'
import {DataInputError} from '../data/errors.js'
import {readSource} from '../data/readSource.js'
import {decodeSafetensors, SafetensorsError} from '../export/safetensors.js'
import type {JobSpec} from '../spec/schema.js'
import {sha256Hex} from '../../store/sha256.js'
import {modelWeights} from './initialWeights.js'

const decode = (bytes: Uint8Array): CheckpointTensor[] => decodeSafetensors(bytes).tensors

const given = new BlobDatasets<CheckpointTensor[]>(4, decode, (hash) =>
  new DataInputError(`initial weights ${hash} are not loaded in this process`, {
    details: 'A fine-tuning task starts from the weights its spec names: fetch them from the blob store first (loadTaskSpec does).',
    docsPath: 'job-spec.md',
  }),
)

/** The weights a fine-tuning job names must be the model's: every weight, by name and shape, in order. */
function checkFits(spec: Pick<JobSpec, 'model'>, tensors: readonly CheckpointTensor[]): void {
  const expected = modelWeights(spec.model)
  const names = (list: readonly {name: string; shape: readonly number[]}[]) => list.map((w) => `${w.name} [${w.shape.join(', ')}]`).join(', ')
  if (tensors.length !== expected.length || tensors.some((t, i) => t.name !== expected[i]?.name || t.shape.join(',') !== expected[i]?.shape.join(',')))
    throw new DataInputError(`model.initialWeights: expected the model's weights ${names(expected)}, got ${names(tensors)}`)
}

/** A fine-tuning job's starting weights, as values in the model's weight order (loaded or registered first). */
export function givenWeights(hash: Hex): Float32Array[] {
  return given.require(hash).map((t) => t.values)
}

/** Fetches a task's starting weights from the store (hash-checked) so training and replays can start from them. */
export async function fetchGivenWeights(store: Pick<BlobStore, 'get'>, hash: Hex): Promise<void> {
  await given.fetch(store, hash)
}

/**
 * A fine-tuning job's weights read from its source, checked against the model and registered under their
 * hash; the spec comes back naming that hash (`model.initialWeights.data`). With `store`, they are published.
 */
export async function prepareGivenWeights(spec: JobSpec, context: {baseDir: string; store?: Pick<BlobStore, 'get' | 'put'> | undefined}): Promise<JobSpec> {
  const initial = spec.model.initialWeights
  if (!initial) return spec
  const bytes = await readSource(initial.source, {baseDir: context.baseDir, maxBytes: 1024 * 1024 * 1024, store: context.store, field: 'model.initialWeights.source'})
  let tensors: CheckpointTensor[]
  try {
    tensors = decode(bytes)
  } catch (error) {
    if (error instanceof SafetensorsError) throw new DataInputError(`model.initialWeights.source: ${initial.source}: ${error.shortMessage}`)
    throw error
  }
  checkFits(spec, tensors)
  const data = context.store ? await context.store.put(bytes) : sha256Hex(bytes)
  given.register(data, tensors)
  return {...spec, model: {...spec.model, initialWeights: {...initial, data}}}
}
