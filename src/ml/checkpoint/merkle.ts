import {hexToBytes, type Hex} from 'viem'
import {BaseError} from '../../errors/base.js'
import {isHash, sha256Hex} from '../../store/sha256.js'

export class MerkleError extends BaseError {
  override name = 'MerkleError'
}

const leafTag = new Uint8Array([0x00])
const nodeTag = new Uint8Array([0x01])

function bytesOf(hash: Hex, what: string): Uint8Array {
  if (!isHash(hash)) throw new MerkleError(`${what}: expected 0x followed by 64 lowercase hex digits, got ${JSON.stringify(hash)}`)
  return hexToBytes(hash)
}

/** Leaf value: sha256(0x00 || leaf), so a leaf can never be mistaken for an inner node. */
export function merkleLeaf(hash: Hex): Hex {
  return sha256Hex(leafTag, bytesOf(hash, 'leaf'))
}

/** Inner node: sha256(0x01 || left || right). */
export function merkleNode(left: Hex, right: Hex): Hex {
  return sha256Hex(nodeTag, bytesOf(left, 'left'), bytesOf(right, 'right'))
}

function nextLevel(level: Hex[]): Hex[] {
  const out: Hex[] = []
  for (let i = 0; i < level.length; i += 2) {
    const right = level[i + 1]
    // odd node out: promoted unchanged (never paired with itself, which would let [a, b, c] and
    // [a, b, c, c] share a root)
    out.push(right === undefined ? (level[i] as Hex) : merkleNode(level[i] as Hex, right))
  }
  return out
}

/**
 * Merkle root over 32-byte hashes (e.g. checkpoint hashes in step order): leaves are
 * sha256(0x00 || h_i); each level pairs neighbours left to right as sha256(0x01 || left || right); a
 * last unpaired node is carried up unchanged. One hash gives its leaf value. Empty input throws.
 */
export function merkleRoot(hashes: readonly Hex[]): Hex {
  if (hashes.length === 0) throw new MerkleError('merkle root: expected at least one hash, got none')
  let level = hashes.map((h) => merkleLeaf(h))
  while (level.length > 1) level = nextLevel(level)
  return level[0] as Hex
}

/** The sibling hashes from leaf `index` up to the root (levels where the node is unpaired are skipped). */
export function merkleProof(hashes: readonly Hex[], index: number): Hex[] {
  if (!Number.isInteger(index) || index < 0 || index >= hashes.length)
    throw new MerkleError(`merkle proof index: expected an integer in [0, ${hashes.length - 1}], got ${index}`)
  const proof: Hex[] = []
  let level = hashes.map((h) => merkleLeaf(h))
  let i = index
  while (level.length > 1) {
    const sibling = i % 2 === 0 ? level[i + 1] : level[i - 1]
    if (sibling !== undefined) proof.push(sibling)
    level = nextLevel(level)
    i = Math.floor(i / 2)
  }
  return proof
}

/** Checks that `leaf` is hash number `index` of `leafCount` under `root`, given {@link merkleProof}'s siblings. */
export function verifyMerkleProof({root, leaf, index, leafCount, proof}: {root: Hex; leaf: Hex; index: number; leafCount: number; proof: readonly Hex[]}): boolean {
  if (!Number.isInteger(index) || !Number.isInteger(leafCount) || index < 0 || index >= leafCount) return false
  if (![root, leaf, ...proof].every(isHash)) return false
  let node = merkleLeaf(leaf)
  let i = index
  let width = leafCount
  let used = 0
  while (width > 1) {
    if (i % 2 === 1) {
      const sibling = proof[used++]
      if (sibling === undefined) return false
      node = merkleNode(sibling, node)
    } else if (i + 1 < width) {
      const sibling = proof[used++]
      if (sibling === undefined) return false
      node = merkleNode(node, sibling)
    }
    i = Math.floor(i / 2)
    width = Math.ceil(width / 2)
  }
  return used === proof.length && node === root
}
