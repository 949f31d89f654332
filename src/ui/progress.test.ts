import assert from 'node:assert/strict'
import {PassThrough} from 'node:stream'

import {createMultiProgress} from './progress.js'

/** A pipe, as a CI log or `| tee` sees it: not a terminal. */
function pipe(): {stream: NodeJS.WriteStream; text: () => string} {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
  return {stream: Object.assign(stream, {isTTY: false}) as unknown as NodeJS.WriteStream, text: () => text}
}

describe('createMultiProgress', () => {
  it('off a terminal: one plain line per change of each item, no carriage returns or escape codes', async () => {
    const {stream, text} = pipe()
    const multi = createMultiProgress({enabled: true, stream})
    const first = multi.add('task 1 (1/2)', 5)
    const second = multi.add('task 2 (2/2)', 5)
    first.update(0, 'Submitted')
    second.update(0, 'Submitted')
    first.update(1, 'Claimed')
    first.update(1, 'Claimed')
    first.update(5, 'Settled')
    const lines: string[] = []
    multi.log('a line above the bars', (line) => lines.push(line))
    multi.stop()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(text(), ['task 1 (1/2): Submitted (0/5)', 'task 2 (2/2): Submitted (0/5)', 'task 1 (1/2): Claimed (1/5)', 'task 1 (1/2): Settled (5/5)', ''].join('\n'))
    assert.deepEqual(lines, ['a line above the bars'])
  })

  it('disabled (--json): writes nothing', async () => {
    const {stream, text} = pipe()
    const multi = createMultiProgress({enabled: false, stream})
    multi.add('task 1', 5).update(3, 'Verifying')
    multi.stop()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(text(), '')
  })
})
