import assert from 'node:assert/strict'

import fc from 'fast-check'
import {type Hex, size, toHex} from 'viem'

import {challengeCommitment, sealClaim, unsealClaim} from './challengeCommitment.js'

const bytes32 = fc.uint8Array({minLength: 32, maxLength: 32}).map((bytes) => toHex(bytes))
const claims = fc.record({segment: fc.integer({min: 0, max: 2 ** 32 - 1}), claimedEndHash: bytes32})
const whistleblower: Hex = '0x00000000000000000000000000000000000000a1'

describe('challengeCommitment: the sealed claim a whistleblower reads back after a restart', () => {
  it('unseals with the salt it was sealed with, to exactly the claim (36 bytes on chain)', () => {
    fc.assert(
      fc.property(claims, bytes32, (claim, salt) => {
        const sealed = sealClaim(claim, salt)
        assert.equal(size(sealed), 36)
        assert.deepEqual(unsealClaim(sealed, salt), {...claim})
      }),
    )
  })

  it('another salt opens it to a claim that does not match the commitment (what readCommittedClaim checks)', () => {
    fc.assert(
      fc.property(claims, bytes32, bytes32, (claim, salt, other) => {
        fc.pre(salt !== other)
        const wrong = unsealClaim(sealClaim(claim, salt), other)!
        assert.notDeepEqual(wrong, {...claim})
        assert.notEqual(challengeCommitment(1n, whistleblower, wrong, other), challengeCommitment(1n, whistleblower, claim, salt))
      }),
    )
  })

  it('refuses a sealed claim of the wrong length', () => {
    assert.equal(unsealClaim('0x', toHex(1, {size: 32})), undefined)
    assert.equal(unsealClaim(toHex(1, {size: 37}), toHex(1, {size: 32})), undefined)
  })

  it('the commitment binds the task, the whistleblower, the segment, the claim and the salt', () => {
    const claim = {segment: 3, claimedEndHash: toHex(7, {size: 32})}
    const salt = toHex(9, {size: 32})
    const base = challengeCommitment(1n, whistleblower, claim, salt)
    const variants = [
      challengeCommitment(2n, whistleblower, claim, salt),
      challengeCommitment(1n, '0x00000000000000000000000000000000000000a2', claim, salt),
      challengeCommitment(1n, whistleblower, {...claim, segment: 4}, salt),
      challengeCommitment(1n, whistleblower, {...claim, claimedEndHash: toHex(8, {size: 32})}, salt),
      challengeCommitment(1n, whistleblower, claim, toHex(10, {size: 32})),
    ]
    assert.equal(new Set([base, ...variants]).size, 6)
  })
})
