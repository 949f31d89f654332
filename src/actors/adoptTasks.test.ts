import assert from 'node:assert/strict'

import {InvalidInputError} from '../errors/base.js'
import {parseTaskIds} from './adoptTasks.js'

describe('parseTaskIds (submit --task-ids)', () => {
  it('reads decimal ids separated by commas, in order', () => {
    assert.deepEqual(parseTaskIds('4'), [4n])
    assert.deepEqual(parseTaskIds('3, 4,12'), [3n, 4n, 12n])
  })

  it('refuses anything else in one line naming the flag', () => {
    for (const bad of ['', 'x', '1,,2', '-1', '0x10', '1;2']) {
      assert.throws(() => parseTaskIds(bad), (error: Error) => error instanceof InvalidInputError && error.message.startsWith('--task-ids: expected task ids separated by commas'))
    }
  })
})
