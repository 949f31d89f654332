import assert from 'node:assert/strict'

import {challengeOnceWait, solverWait, verifierWait, whistleblowerWait} from './roleWaits.js'

const address = `0x${'11'.repeat(20)}` as const

describe('roleWaits: what a role waits for after each event', () => {
  it('a solver: a task to claim, then busy training, then the verdict, the dispute, and a task again once settled', () => {
    const waits = [
      solverWait({type: 'ready', address, runtime: 'wasm', disputeStance: 'honest', ask: 1n, capacity: 1}),
      solverWait({type: 'claimed', taskId: 3n, claimBlock: 9n, gasUsed: 1n, price: 1n}),
      solverWait({type: 'warning', taskId: 3n, message: 'slow'}),
      solverWait({type: 'committed', taskId: 3n, proofRoot: '0x00', manifestHash: '0x00', checkpoints: 4, totalSteps: 200, trainingSeconds: 1, runtime: 'wasm', gasUsed: 1n}),
      solverWait({type: 'settle', taskId: 3n, gasUsed: 1n, outcome: {type: 'dispute-started', disputeId: 2n}}),
      solverWait({type: 'dispute', event: {type: 'resolved', disputeId: 2n, taskId: 3n, role: 'prover', outcome: 'ProverWon' as never, won: true}}),
      solverWait({type: 'settle', taskId: 3n, gasUsed: 1n, outcome: {type: 'settled', accepted: true}}),
    ]
    assert.deepEqual(waits, [
      'waiting for an open task to claim',
      null,
      undefined,
      "task 3: waiting for a verifier's verdict",
      "task 3: waiting for dispute 2's first move",
      "task 3: waiting for the market to apply dispute 2's outcome",
      'waiting for an open task to claim',
    ])
  })

  it('a verifier, a whistleblower and a one-off challenge', () => {
    assert.equal(verifierWait({type: 'ready', address, runtime: 'wasm', strategy: 'honest'}), 'waiting for a committed proof to verify')
    assert.equal(verifierWait({type: 'claimed', taskId: 1n, randomness: '0x00', gasUsed: 1n}), null)
    assert.equal(whistleblowerWait({type: 'ready', address, strategy: 'honest'}), 'watching for accepted tasks in their challenge window')
    assert.equal(whistleblowerWait({type: 'committed', taskId: 5n, index: 0n, gasUsed: 1n}), 'task 5: waiting for the challenge window to close, to open the challenge')
    const challenged = {type: 'challenged', taskId: 5n, segment: 1, claimedEndHash: '0x00', index: 0n, gasUsed: 1n} as const
    // Without --wait the command ends once it challenged: nothing left to wait for.
    assert.equal(challengeOnceWait(challenged, false), null)
    assert.equal(challengeOnceWait(challenged, true), 'task 5: waiting for the dispute to be decided')
  })
})
