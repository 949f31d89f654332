import {BaseError} from '../../errors/base.js'
import type {ProofManifest} from '../../pol/index.js'
import type {SignedConnection} from '../../protocol/connect.js'
import {getTask} from '../../protocol/getTask.js'
import type {Task} from '../../protocol/types.js'

/** The manifest of a split task's parent's accepted proof (the one its on-chain root commits to). */
export async function parentManifest(connection: SignedConnection, task: Task): Promise<ProofManifest> {
  const parent = await getTask(connection, {taskId: task.parentId})
  const manifest = await connection.store.getJson<ProofManifest>(parent.manifestHash)
  if (manifest.merkleRoot !== parent.proofRoot)
    throw new BaseError(`task ${task.id}: the proof of its parent task ${task.parentId} in the store is not the accepted one (root ${parent.proofRoot})`)
  return manifest
}
