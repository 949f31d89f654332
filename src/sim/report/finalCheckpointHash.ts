import type {Hex} from 'viem'

import {finalCheckpointOf, type ProofManifest} from '../../pol/index.js'
import type {Connection} from '../../protocol/connect.js'
import type {Task} from '../../protocol/types.js'

/** The last checkpoint of the task's committed proof, read from the blob store (null when it has none). */
export async function finalCheckpointHash(connection: Connection, task: Task): Promise<Hex | null> {
  if (/^0x0{64}$/.test(task.manifestHash)) return null
  try {
    return finalCheckpointOf(await connection.store.getJson<ProofManifest>(task.manifestHash)).hash
  } catch {
    return null
  }
}
