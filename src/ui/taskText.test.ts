import assert from 'node:assert/strict'

import {timeText} from './taskText.js'

describe('timeText (tasks show for people)', () => {
  const now = Date.UTC(2026, 10, 27, 10, 0, 0) / 1000

  it('says how far a time is from the chain clock, with the UTC time beside it', () => {
    assert.equal(timeText(now + 240, now), 'in 4 minutes (2026-11-27 10:04:00 UTC)')
    assert.equal(timeText(now - 30, now), '30 seconds ago (2026-11-27 09:59:30 UTC)')
    assert.equal(timeText(now - 3 * 3600, now), '3 hours ago (2026-11-27 07:00:00 UTC)')
    assert.equal(timeText(now + 3 * 86_400, now), 'in 3 days (2026-11-30 10:00:00 UTC)')
  })

  it('shows a time the task has not reached (0) as a dash', () => {
    assert.equal(timeText(0, now), '-')
  })
})
