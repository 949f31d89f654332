import assert from 'node:assert/strict'

import {detectionMatrix} from './detectionMatrix.js'
import type {MarketLogEntry} from './readMarketLog.js'
import {taskTimeline} from './taskTimeline.js'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const
const [dropout, solver, lazy, verifier, griefer] = [1, 2, 3, 4, 5].map(address) as [`0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`]
const actors = [
  {address: dropout, name: 'dropout-1', role: 'solver', strategy: 'dropout'},
  {address: solver, name: 'solver-1', role: 'solver', strategy: 'honest'},
  {address: lazy, name: 'lazy-verifier-1', role: 'verifier', strategy: 'lazy'},
  {address: verifier, name: 'verifier-1', role: 'verifier', strategy: 'honest'},
  {address: griefer, name: 'griefer-1', role: 'whistleblower', strategy: 'griefer'},
]

/** A task's events in chain order: [block, event, args]; events in one block share a transaction. */
function log(events: [number, string, Record<string, unknown>][]): MarketLogEntry[] {
  return events.map(([block, eventName, args], logIndex) => ({eventName, args: {id: 1n, ...args}, block: BigInt(block), logIndex, transactionHash: `0x${block.toString(16).padStart(64, '0')}`, seconds: block * 2}))
}

// A dropout times out, an honest solver takes over, commits a forced error that the lazy verifier accepts
// (slashed at the reveal), a griefer challenges the fresh verdict and loses its deposit, the task settles.
const run = log([
  [1, 'TaskSubmitted', {}],
  [2, 'TaskClaimed', {solver: dropout}],
  [5, 'ClaimTimedOut', {solver: dropout}],
  [5, 'StakeSlashed', {account: dropout, winner: address(0)}],
  [5, 'TaskReopened', {}],
  [6, 'TaskClaimed', {solver}],
  [8, 'ProofCommitted', {}],
  [9, 'VerificationClaimed', {verifier: lazy}],
  [10, 'VerdictPosted', {verifier: lazy}],
  [14, 'StakeSlashed', {account: lazy, winner: address(0)}],
  [14, 'ForcedErrorRevealed', {catchers: []}],
  [14, 'VerificationReopened', {}],
  [15, 'VerificationClaimed', {verifier}],
  [16, 'VerdictPosted', {verifier}],
  [17, 'ChallengeQueued', {whistleblower: griefer}],
  [22, 'StakeSlashed', {account: griefer, winner: solver}],
  [25, 'TaskSettled', {}],
])

describe('detectionMatrix and taskTimeline (from market events)', () => {
  it('counts who was caught, by whom, and leaves the honest alone', () => {
    const rows = new Map(detectionMatrix(run, actors).map((row) => [row.label, row]))
    const summary = (label: string) => {
      const row = rows.get(label)!
      return {caught: row.caught, notCaught: row.notCaught, pending: row.pending, by: row.caughtBy.map((catcher) => catcher.by)}
    }
    assert.deepEqual(summary('solver: dropout'), {caught: 1, notCaught: 0, pending: 0, by: ['timeout']})
    assert.deepEqual(summary('solver: honest'), {caught: 0, notCaught: 1, pending: 0, by: []})
    assert.deepEqual(summary('verifier: lazy'), {caught: 1, notCaught: 0, pending: 0, by: ['forced error']})
    assert.deepEqual(summary('verifier: honest'), {caught: 0, notCaught: 1, pending: 0, by: []})
    assert.deepEqual(summary('whistleblower: griefer'), {caught: 1, notCaught: 0, pending: 0, by: ['solver-1']})
    // The forced error nobody flagged: revealed with no catcher, so not caught.
    assert.deepEqual(summary('forced error'), {caught: 0, notCaught: 1, pending: 0, by: []})
  })

  it('leaves a play the run ended before as pending', () => {
    const rows = detectionMatrix(run.slice(0, 8), actors)
    assert.equal(rows.find((row) => row.label === 'verifier: lazy')!.pending, 1)
    assert.equal(rows.find((row) => row.label === 'solver: honest')!.pending, 1)
  })

  it('draws each attempt of each phase, the open one up to the head', () => {
    const timeline = taskTimeline(run, {block: 30n, seconds: 60})
    assert.deepEqual(
      timeline.segments.map((segment) => `${segment.attempt}:${segment.phase}:${segment.startBlock}-${segment.endBlock}`),
      ['1:submitted:1-2', '1:claimed:2-5', '2:submitted:5-6', '2:claimed:6-8', '2:committed:8-9', '2:verifying:9-10', '2:challenge window:10-14', '2:committed:14-15', '2:verifying:15-16', '2:challenge window:16-25'],
    )
    assert.deepEqual(timeline.ends, [{taskId: '1', outcome: 'settled', block: '25', seconds: 50}])
    const open = taskTimeline(run.slice(0, 8), {block: 30n, seconds: 60})
    assert.deepEqual(open.segments.at(-1), {taskId: '1', attempt: 2, phase: 'verifying', startBlock: '9', endBlock: '30', start: 18, end: 60, open: true})
  })
})
