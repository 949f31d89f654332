import assert from 'node:assert/strict'

import {planTable} from './planTable.js'

describe('planTable', () => {
  it('gives exact detection chances and the replays needed for 99%', () => {
    // 5 segments, replay 2 (the final + 1 of the other 4); faking 1 of 4 is caught with chance 1/4.
    const table = planTable({segmentCount: 5, sampled: 2, fakedFractions: [0.25, 0.5, 1]})
    assert.deepEqual(
      table.rows.map((row) => [row.faked, row.detection]),
      [
        [1, 0.25],
        [2, 0.5],
        [4, 1],
      ],
    )
    // Faking 1 of 4: only replaying all 4 non-final segments (5 in all) reaches 99%.
    assert.equal(table.rows[0]!.segmentsFor99, 5)
    assert.equal(table.rows[2]!.segmentsFor99, 2)
  })
})
