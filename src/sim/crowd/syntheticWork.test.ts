import assert from 'node:assert/strict'

import {keccak256, toHex} from 'viem'

import {merkleRoot} from '../../ml/checkpoint/merkle.js'
import {checkpointsOf, firstWrongSegment, replaySegment, replaySteps, startState, syntheticStates} from './syntheticWork.js'

const specHash = keccak256(toHex('a synthetic task'))

describe('synthetic work: a crowd task that replays bit for bit', () => {
  it('is the same run every time from the same spec, and another run from another spec', () => {
    assert.deepEqual(syntheticStates(specHash, 20), syntheticStates(specHash, 20))
    assert.notEqual(syntheticStates(specHash, 20)[20], syntheticStates(keccak256(toHex('another')), 20)[20])
    assert.equal(replaySteps(startState(specHash), 0, 13), syntheticStates(specHash, 20)[13])
  })

  it('takes the checkpoints every interval steps and at the last step', () => {
    const checkpoints = checkpointsOf(syntheticStates(specHash, 23), 5)
    assert.deepEqual(
      checkpoints.map((checkpoint) => checkpoint.step),
      [0, 5, 10, 15, 20, 23],
    )
    assert.equal(replaySegment(checkpoints, 4), checkpoints[5]!.hash, 'the short last segment replays too')
  })

  it('passes every segment of an honest proof', () => {
    const checkpoints = checkpointsOf(syntheticStates(specHash, 20), 5)
    assert.equal(firstWrongSegment(checkpoints, [0, 1, 2, 3]), undefined)
  })

  it("fails exactly the segment of a cheater's wrong step, and only when that segment is replayed", () => {
    for (const wrongAfter of [0, 4, 5, 12, 19]) {
      const checkpoints = checkpointsOf(syntheticStates(specHash, 20, wrongAfter), 5)
      const segment = Math.floor(wrongAfter / 5)
      const others = [0, 1, 2, 3].filter((candidate) => candidate !== segment)
      assert.equal(firstWrongSegment(checkpoints, others), undefined, `wrong after step ${wrongAfter}: another segment failed`)
      const wrong = firstWrongSegment(checkpoints, [3, 2, 1, 0])
      assert.equal(wrong?.segment, segment, `wrong after step ${wrongAfter}`)
      // The replay reaches the honest end: what a whistleblower claims in its challenge.
      assert.equal(wrong?.replayHash, replaySteps(checkpoints[segment]!.hash, checkpoints[segment]!.step, checkpoints[segment + 1]!.step))
      assert.notEqual(wrong?.replayHash, checkpoints[segment + 1]!.hash)
    }
  })

  it('commits to a different proof root when the run went wrong', () => {
    const root = (states: readonly `0x${string}`[]) => merkleRoot(checkpointsOf(states, 5).map((checkpoint) => checkpoint.hash))
    assert.notEqual(root(syntheticStates(specHash, 20)), root(syntheticStates(specHash, 20, 7)))
  })
})
