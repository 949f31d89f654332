import assert from 'node:assert/strict'
import {PassThrough} from 'node:stream'

import {createWaitStatus, formatWait} from './waitStatus.js'

/** A stream that records what is written to it; as a terminal, it takes the cursor calls ora makes. */
function recorder(isTTY: boolean): {stream: NodeJS.WriteStream; text: () => string} {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const terminal = {
    isTTY,
    columns: 80,
    cursorTo: (x: number) => stream.write(`\u001B[${x + 1}G`),
    moveCursor: (_dx: number, dy: number) => stream.write(dy < 0 ? `\u001B[${-dy}A` : ''),
    clearLine: () => stream.write('\u001B[2K'),
  }
  return {stream: Object.assign(stream, isTTY ? terminal : {isTTY}) as unknown as NodeJS.WriteStream, text: () => text}
}

/** Resolves once `check` holds, polling; fails with what was written if it never does. */
async function eventually(check: () => boolean, what: () => string): Promise<void> {
  for (let tries = 0; tries < 500 && !check(); tries++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.ok(check(), what())
}

describe('createWaitStatus: the line a command shows while it waits', () => {
  it('on a terminal: a spinner redrawn in place with what it waits for, since how long and the block', async () => {
    const {stream, text} = recorder(true)
    let clock = 1_000_000
    let head = 41n
    const status = createWaitStatus({enabled: true, stream, readBlock: async () => head, refreshMs: 10, now: () => clock})
    try {
      status.update('waiting for an open task to claim')
      await eventually(() => text().includes('waiting for an open task to claim · 0 s · block 41'), text)
      clock += 75_000
      head = 44n
      await eventually(() => text().includes('waiting for an open task to claim · 1 min 15 s · block 44'), text)
      assert.match(text(), /\u001B\[2K/, 'the line is not redrawn in place')
      assert.match(text(), /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/u, 'no spinner frame')
      // A new wait restarts the clock; busy (null) clears the line.
      status.update('task 3: waiting for a verifier\'s verdict')
      await eventually(() => text().includes("task 3: waiting for a verifier's verdict · 0 s · block 44"), text)
      const before = text().length
      status.update(null)
      assert.ok(text().length > before && text().endsWith('\u001B[1G\u001B[2K'), `the line was not cleared: ${JSON.stringify(text().slice(-40))}`)
    } finally {
      status.stop()
    }
  })

  it('off a terminal: one plain line when a wait starts, never repeated or redrawn', async () => {
    const {stream, text} = recorder(false)
    const status = createWaitStatus({enabled: true, stream, readBlock: async () => 7n})
    status.update('waiting for a committed proof to verify')
    await eventually(() => text().includes('\n'), text)
    status.update('waiting for a committed proof to verify')
    status.update(undefined)
    status.update(null)
    status.update('task 1: waiting for its challenge and reveal windows to close, to settle it')
    await eventually(() => text().split('\n').length === 3, text)
    status.stop()
    assert.equal(text(), 'waiting for a committed proof to verify (block 7)\ntask 1: waiting for its challenge and reveal windows to close, to settle it (block 7)\n')
  })

  it('off a terminal with an unreachable chain: the line still comes, without a block', async () => {
    const {stream, text} = recorder(false)
    const status = createWaitStatus({enabled: true, stream, readBlock: () => Promise.reject(new Error('connection refused'))})
    status.update('waiting for an open task to claim')
    await eventually(() => text() !== '', text)
    assert.equal(text(), 'waiting for an open task to claim\n')
  })

  it('under --json (disabled): writes nothing, on a terminal or not', async () => {
    for (const isTTY of [true, false]) {
      const {stream, text} = recorder(isTTY)
      const status = createWaitStatus({enabled: false, stream, readBlock: async () => 1n})
      status.update('waiting for an open task to claim')
      await new Promise((resolve) => setImmediate(resolve))
      status.stop()
      assert.equal(text(), '')
    }
  })

  it('formatWait: seconds, then minutes, then hours', () => {
    assert.deepEqual([0, 59, 60, 605, 3599, 3600, 3725].map(formatWait), ['0 s', '59 s', '1 min 00 s', '10 min 05 s', '59 min 59 s', '1 h 00 min', '1 h 02 min'])
  })
})
