import {hexToBytes, type Hex} from 'viem'
import {sha256Hex} from '../store/sha256.js'

/**
 * A private job's mapping key (docs/privacy.md): sha256("gensyn/privacy/key/v1" || 0x00 || secret || blockHash),
 * from the submitter's local secret and the hash of the last block before the submission. The block makes every
 * job's key fresh (one secret, many jobs, unlinkable mappings); the secret keeps it the submitter's alone.
 */
export function deriveMappingKey({secret, blockHash}: {secret: Hex; blockHash: Hex}): Hex {
  return sha256Hex(new TextEncoder().encode('gensyn/privacy/key/v1'), new Uint8Array([0]), hexToBytes(secret), hexToBytes(blockHash))
}
