import assert from 'node:assert/strict'

import {describeActorEvent} from './describeActorEvent.js'

describe('describeActorEvent', () => {
  it("tells a whistleblower's commitment to a challenge from a solver's commit of its proof (both are 'committed')", () => {
    const solver = describeActorEvent('solver', {type: 'committed', taskId: '1', checkpoints: 5, trainingSeconds: 1.24})
    assert.equal(solver.activity, 'committed #1, awaiting verdict')
    assert.equal(solver.feed?.text, 'committed #1: 5 checkpoints in 1.2 s')
    const whistleblower = describeActorEvent('whistleblower', {type: 'committed', taskId: '1', index: '0', gasUsed: '61234'})
    assert.deepEqual(whistleblower, {activity: 'committed a challenge of #1'})
  })
})
