import {keyFilePath, writeKeyFile} from '../../privacy/keyFile.js'
import type {JobMappingKey, SubmittedTask} from './types.js'

/** Writes a new private job's key file once per task (docs/privacy.md), so any of its task ids finds it; returns the files. */
export async function writeMappingKeys(keysDir: string, mappingKey: JobMappingKey, tasks: readonly SubmittedTask[], inputShape: number[]): Promise<string[]> {
  const taskIds = tasks.map((task) => task.taskId!)
  const keyFiles = taskIds.map((id) => keyFilePath(keysDir, id))
  const {mapping, key, blockNumber, blockHash, data} = mappingKey
  for (const file of keyFiles)
    await writeKeyFile(file, {format: 'gensyn-privacy-key/v1', mapping, key, blockNumber: blockNumber.toString(), blockHash, data, inputShape, taskIds})
  return keyFiles
}
