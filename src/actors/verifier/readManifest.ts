import type {Hex} from 'viem'

import type {ProofManifest} from '../../pol/index.js'
import type {SignedConnection} from '../../protocol/connect.js'

/** A proof manifest from the store, or undefined when it is missing or not JSON (verifyProof then rejects the proof). */
export async function readManifest(connection: SignedConnection, manifestHash: Hex): Promise<ProofManifest | undefined> {
  try {
    return await connection.store.getJson<ProofManifest>(manifestHash)
  } catch {
    return undefined
  }
}
