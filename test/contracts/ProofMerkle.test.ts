import assert from 'node:assert/strict'

import fc from 'fast-check'
import {type Address, getAddress, type Hex, keccak256, toHex} from 'viem'

import {merkleLeaf, merkleNode, merkleProof, merkleRoot, verifyMerkleProof} from '../../src/ml/checkpoint/merkle.js'
import {receiptOf, useChain} from './helpers/chain.js'
import {fixture} from './helpers/compileFixtures.js'

const hashOf = (n: number): Hex => keccak256(toHex(n))

/**
 * contracts/ProofMerkle.sol against src/ml/checkpoint/merkle.ts: the same leaf and node hashing, and `verify` agrees with
 * `verifyMerkleProof` on valid proofs of every index of trees of 1..40 leaves and on every kind of tampering.
 */
describe('ProofMerkle (on anvil, against src/ml/checkpoint/merkle.ts)', function () {
  this.timeout(120_000)
  const ctx = useChain()
  let harness: Address
  const {abi, bytecode} = fixture('ProofMerkleHarness')

  before(async () => {
    const hash = await ctx.actors.deployer.wallet.deployContract({abi, bytecode})
    harness = getAddress((await receiptOf(ctx.publicClient, hash)).contractAddress!)
  })

  const onChain = (root: Hex, leaf: Hex, index: number, leafCount: number, proof: readonly Hex[]) =>
    ctx.publicClient.readContract({address: harness, abi, functionName: 'verify', args: [root, leaf, BigInt(index), BigInt(leafCount), proof]}) as Promise<boolean>

  it('hashes leaves as sha256(0x00 || h) and nodes as sha256(0x01 || l || r)', async () => {
    const [a, b] = [hashOf(1), hashOf(2)]
    assert.equal(await ctx.publicClient.readContract({address: harness, abi, functionName: 'leaf', args: [a]}), merkleLeaf(a))
    assert.equal(await ctx.publicClient.readContract({address: harness, abi, functionName: 'node', args: [a, b]}), merkleNode(a, b))
  })

  it('accepts every valid proof of every index of trees of 1..40 leaves (odd nodes promoted)', async () => {
    for (let count = 1; count <= 40; count++) {
      const leaves = Array.from({length: count}, (_, i) => hashOf(count * 100 + i))
      const root = merkleRoot(leaves)
      for (let index = 0; index < count; index++) {
        const proof = merkleProof(leaves, index)
        assert.equal(verifyMerkleProof({root, leaf: leaves[index]!, index, leafCount: count, proof}), true)
        assert.equal(await onChain(root, leaves[index]!, index, count, proof), true, `${count} leaves, index ${index}`)
      }
    }
  })

  it('agrees with verifyMerkleProof on random tampering: other leaf, index, count, root, truncated, extended or altered proofs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({min: 1, max: 64}),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('none', 'leaf', 'index', 'count', 'root', 'truncate', 'extend', 'alter', 'swap'),
        async (count, indexSeed, pick, tamper) => {
          const leaves = Array.from({length: count}, (_, i) => hashOf(count * 1000 + i))
          let root = merkleRoot(leaves)
          let index = indexSeed % count
          let leafCount = count
          let leaf = leaves[index]!
          let proof = merkleProof(leaves, index)
          if (tamper === 'leaf') leaf = hashOf(999_991)
          if (tamper === 'index') index = (index + 1 + (pick % (count + 1))) % (count + 2)
          if (tamper === 'count') leafCount = Math.max(0, count + (pick % 2 === 0 ? 1 : -1))
          if (tamper === 'root') root = hashOf(999_992)
          if (tamper === 'truncate') proof = proof.slice(0, Math.max(0, proof.length - 1))
          if (tamper === 'extend') proof = [...proof, hashOf(999_993)]
          if (tamper === 'alter' && proof.length > 0) proof = proof.map((p, i) => (i === pick % proof.length ? hashOf(999_994) : p))
          if (tamper === 'swap' && proof.length > 1) proof = [...proof].reverse()
          const expected = verifyMerkleProof({root, leaf, index, leafCount, proof})
          assert.equal(await onChain(root, leaf, index, leafCount, proof), expected, `${tamper}: ${count} leaves, index ${index} of ${leafCount}`)
        },
      ),
      {numRuns: 300},
    )
  })

  it('rejects an index at or past leafCount, and a proof for an empty tree', async () => {
    const leaves = [hashOf(1), hashOf(2), hashOf(3)]
    const root = merkleRoot(leaves)
    assert.equal(await onChain(root, leaves[2]!, 3, 3, merkleProof(leaves, 2)), false)
    assert.equal(await onChain(root, leaves[0]!, 0, 0, []), false)
    // A one-leaf tree: the root is the leaf value and the proof is empty.
    assert.equal(await onChain(merkleRoot([leaves[0]!]), leaves[0]!, 0, 1, []), true)
  })
})
