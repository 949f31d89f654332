import type {Hex} from 'viem'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {encodeMappedDataset, registerMappedDataset} from '../ml/data/mappedDataset.js'
import type {JobSpec} from '../ml/spec/schema.js'
import type {BlobStore} from '../store/types.js'
import {deriveMappingKey} from './deriveMappingKey.js'
import {mapJobData} from './mapJobData.js'

export type PublishedPrivateData = {
  /** The job with privacy.data set: what the tasks are posted as. */
  spec: JobSpec
  key: Hex
  data: Hex
  /** Bytes of the mapped data set in the store. */
  bytes: number
}

/**
 * The submitter's side of a private job (docs/privacy.md): derive the key from the local secret and the hash of
 * the last block, map the job's raw samples locally, store only the mapped data set, and name it in the spec.
 * Neither the raw samples nor the key go into the store.
 */
export async function publishPrivateData(options: {spec: JobSpec; secret: Hex; blockHash: Hex; store: Pick<BlobStore, 'put'>}): Promise<PublishedPrivateData> {
  const {spec} = options
  const privacy = spec.privacy
  if (!privacy) throw new TypeError('publishPrivateData: the spec has no privacy field')
  const key = deriveMappingKey({secret: options.secret, blockHash: options.blockHash})
  // Always wasm: the mapping is computed once, here, and the wrapped model recomputes it on wasm by default.
  await selectBackend('wasm')
  const dataset = mapJobData(spec, privacy.mapping, key)
  const encoded = encodeMappedDataset(dataset)
  const data = await options.store.put(encoded)
  registerMappedDataset(data, dataset)
  return {spec: {...spec, privacy: {mapping: privacy.mapping, data}}, key, data, bytes: encoded.length}
}
