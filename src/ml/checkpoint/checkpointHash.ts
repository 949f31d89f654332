import type {Hex} from 'viem'
import {sha256Hex} from '../../store/sha256.js'

/** sha256 of the canonical checkpoint bytes: the value committed in proofs (and the blob store key). */
export function checkpointHash(bytes: Uint8Array): Hex {
  return sha256Hex(bytes)
}
