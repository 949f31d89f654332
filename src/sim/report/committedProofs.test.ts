import assert from 'node:assert/strict'
import {zeroHash} from 'viem'

import {committedProofs} from './committedProofs.js'
import type {MarketLogEntry} from './readMarketLog.js'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const [cheater, solver, colluder, verifier] = [1, 2, 3, 4].map(address) as [`0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`]

/** A task's events in chain order: [block, event, args]. */
function log(events: [number, string, Record<string, unknown>][]): MarketLogEntry[] {
  return events.map(([block, eventName, args], logIndex) => ({eventName, args: {id: 1n, ...args}, block: BigInt(block), logIndex, transactionHash: hash(block), seconds: block}))
}

const summary = (entries: MarketLogEntry[]) =>
  committedProofs(entries).map((proof) => ({proof: proof.proof, solver: proof.solver, manifest: proof.manifestHash, spec: proof.specHash, verdicts: proof.verdicts.map((verdict) => [verdict.verifier, verdict.accepted, verdict.reportHash]), reopened: proof.reopened}))

describe('committedProofs (the proofs a training curve is drawn for)', () => {
  it('a cheat accepted by its partner, overturned and re-verified, then a forced error: each proof once, with its own verdicts', () => {
    const proofs = summary(
      log([
        [1, 'TaskSubmitted', {specHash: hash(0xaa)}],
        [2, 'TaskClaimed', {solver: cheater}],
        [3, 'ProofCommitted', {manifestHash: hash(1)}],
        [4, 'VerdictPosted', {verifier: colluder, accepted: true, reportHash: hash(11)}],
        // a whistleblower wins: the same proof is verified again (the event names no manifest), and rejected
        [6, 'VerificationReopened', {manifestHash: zeroHash}],
        [7, 'VerdictPosted', {verifier, accepted: false, reportHash: hash(12)}],
        [7, 'TaskRejected', {solver: cheater}],
        [7, 'TaskReopened', {}],
        [8, 'TaskClaimed', {solver}],
        [9, 'ProofCommitted', {manifestHash: hash(2)}],
        [10, 'VerdictPosted', {verifier, accepted: true, reportHash: hash(13)}],
        // a forced error's reveal puts the sealed honest proof up for verification
        [12, 'VerificationReopened', {manifestHash: hash(3)}],
        [13, 'VerdictPosted', {verifier, accepted: true, reportHash: hash(14)}],
      ]),
    )
    assert.deepEqual(proofs, [
      {proof: 1, solver: cheater, manifest: hash(1), spec: hash(0xaa), verdicts: [[colluder, true, hash(11)], [verifier, false, hash(12)]], reopened: true},
      {proof: 2, solver, manifest: hash(2), spec: hash(0xaa), verdicts: [[verifier, true, hash(13)]], reopened: false},
      {proof: 3, solver, manifest: hash(3), spec: hash(0xaa), verdicts: [[verifier, true, hash(14)]], reopened: false},
    ])
  })

  it('an accepted proof whose task is reopened was overturned; a proof with no verdict yet has none', () => {
    const proofs = summary(
      log([
        [1, 'TaskSubmitted', {specHash: hash(0xbb)}],
        [2, 'TaskClaimed', {solver: cheater}],
        [3, 'ProofCommitted', {manifestHash: hash(1)}],
        [4, 'VerdictPosted', {verifier: colluder, accepted: true, reportHash: hash(11)}],
        [9, 'TaskReopened', {}],
        [10, 'TaskClaimed', {solver}],
        [11, 'ProofCommitted', {manifestHash: hash(2)}],
      ]),
    )
    assert.deepEqual(
      proofs.map((proof) => [proof.proof, proof.verdicts.length, proof.reopened]),
      [
        [1, 1, true],
        [2, 0, false],
      ],
    )
  })
})
