import type {Hex} from 'viem'

import type {JobSpec} from '../../ml/spec/index.js'
import {fetchMappedDataset} from '../../ml/data/mappedDataset.js'
import {keyFilePath, loadOrCreateSecret, readKeyFile, secretPath} from '../../privacy/keyFile.js'
import {publishPrivateData} from '../../privacy/publishPrivateData.js'
import type {SignedConnection} from '../../protocol/connect.js'
import type {JobMappingKey, SubmitJobOptions} from './types.js'

/**
 * A private job's mapping (docs/privacy.md): a new one maps and stores its data set with a key derived from the
 * latest block; a resumed one (`taskIds`) reads the key file written when it was posted, since its tasks name
 * the data set mapped then. Undefined for a job that is not private.
 */
export async function mapPrivateData(
  connection: SignedConnection,
  spec: JobSpec,
  keysDir: string,
  options: Pick<SubmitJobOptions, 'taskIds' | 'onPrivateData'>,
): Promise<{mappingKey: JobMappingKey; mappedBytes?: number} | undefined> {
  if (!spec.privacy) return undefined
  if (options.taskIds) {
    const first = options.taskIds[0]
    const saved = await readKeyFile(keyFilePath(keysDir, String(first)))
    await fetchMappedDataset(connection.store, saved.data as Hex)
    return {mappingKey: {mapping: saved.mapping, key: saved.key as Hex, blockNumber: BigInt(saved.blockNumber), blockHash: saved.blockHash as Hex, data: saved.data as Hex}}
  }
  const block = await connection.publicClient.getBlock({blockTag: 'latest'})
  const secret = await loadOrCreateSecret(secretPath(keysDir))
  const published = await publishPrivateData({spec, secret, blockHash: block.hash, store: connection.store})
  options.onPrivateData?.({mapping: spec.privacy.mapping, data: published.data, bytes: published.bytes})
  return {mappingKey: {mapping: spec.privacy.mapping, key: published.key, blockNumber: block.number, blockHash: block.hash, data: published.data}, mappedBytes: published.bytes}
}
