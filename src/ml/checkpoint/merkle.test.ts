import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import type {Hex} from 'viem'
import {MerkleError, merkleLeaf, merkleNode, merkleProof, merkleRoot, verifyMerkleProof} from './merkle.js'

// leaves: sha256 of the single bytes 0x00, 0x01, 0x02, ...
const leaf = (i: number): Hex => `0x${createHash('sha256').update(Buffer.from([i])).digest('hex')}`
const leaves = Array.from({length: 9}, (_, i) => leaf(i))

describe('merkle', () => {
  it('matches known-answer vectors (computed independently with Python hashlib)', () => {
    assert.equal(leaves[0], '0x6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d')
    const expected: Record<number, Hex> = {
      1: '0xd9de27625445003d8a9739a851e3ff8d41c0683630b4d63a88327a6aaa37c409',
      2: '0x604d540f09268b91672ab011394d5266ccd7d4484d0d109411a55848126a1b2c',
      3: '0xd1f13800048f5909d4043fc0c152f6643280cba608b672715e56ce159a20629f',
      4: '0x0dcc2b645c00dfa2338e1c7ac2c4b570beda5a476d58836e55e28bde55e6bee1',
      5: '0x6b313b611b40676b9e1dfd70c4503f2379f88f0f1c2740fb7e1cacc32c113465',
    }
    for (const [n, root] of Object.entries(expected)) assert.equal(merkleRoot(leaves.slice(0, Number(n))), root, `${n} leaves`)
  })

  it('separates leaves from nodes and promotes an odd node unchanged', () => {
    const [a, b, c] = leaves as [Hex, Hex, Hex]
    assert.equal(merkleRoot([a]), merkleLeaf(a))
    assert.notEqual(merkleRoot([a]), a)
    assert.equal(merkleRoot([a, b, c]), merkleNode(merkleNode(merkleLeaf(a), merkleLeaf(b)), merkleLeaf(c)))
    assert.notEqual(merkleRoot([a, b, c]), merkleRoot([a, b, c, c]), 'no duplicate-last-leaf ambiguity')
    // an inner node presented as a leaf does not give the same root
    assert.notEqual(merkleRoot([merkleNode(merkleLeaf(a), merkleLeaf(b))]), merkleRoot([a, b]))
  })

  it('is order sensitive', () => {
    assert.notEqual(merkleRoot(leaves.slice(0, 4)), merkleRoot([...leaves.slice(0, 4)].reverse()))
  })

  it('proves membership of every leaf for 1..9 leaves and rejects altered proofs', () => {
    for (let n = 1; n <= 9; n++) {
      const set = leaves.slice(0, n)
      const root = merkleRoot(set)
      for (let index = 0; index < n; index++) {
        const proof = merkleProof(set, index)
        const item = set[index] as Hex
        assert.ok(verifyMerkleProof({root, leaf: item, index, leafCount: n, proof}), `n=${n} index=${index}`)
        if (n > 1) {
          assert.ok(!verifyMerkleProof({root, leaf: leaf(200), index, leafCount: n, proof}), 'wrong leaf')
          assert.ok(!verifyMerkleProof({root, leaf: item, index: (index + 1) % n, leafCount: n, proof}) || set[(index + 1) % n] === item, 'wrong index')
          assert.ok(!verifyMerkleProof({root, leaf: item, index, leafCount: n, proof: proof.slice(1)}), 'short proof')
        }
      }
    }
  })

  it('rejects malformed input', () => {
    assert.throws(() => merkleRoot([]), MerkleError)
    assert.throws(() => merkleRoot(['0x1234']), /leaf: expected 0x followed by 64 lowercase hex digits/)
  })
})
