import assert from 'node:assert/strict'

import stringWidth from 'string-width'

import {renderTable} from './renderTable.js'

const hash = `0x${'ab'.repeat(32)}`

describe('renderTable (cli-table3, no borders)', () => {
  it('a header, then one line per row, columns two spaces apart and as wide as their widest cell, no trailing blanks', () => {
    const text = renderTable(['ID', 'STATUS', 'ESCROW (ETH)'], [['1', 'Settled', '0.0176'], ['12', 'Verified', '-']], {maxWidth: Number.POSITIVE_INFINITY})
    assert.equal(text, ['ID  STATUS    ESCROW (ETH)', '1   Settled   0.0176', '12  Verified  -'].join('\n'))
  })

  it('lines columns up by what a terminal shows: wide characters take two columns', () => {
    // Padding by string length (what the hand-written table did) put 1 ETH two columns right of 2 ETH.
    assert.equal(renderTable(['NAME', 'STAKE'], [['任务', '1 ETH'], ['task', '2 ETH']]), 'NAME  STAKE\n任务  1 ETH\ntask  2 ETH')
  })

  it('with no header, key and value pairs (tasks show, disputes show)', () => {
    assert.equal(renderTable([], [['escrow', '1 ETH'], ['submittedAt', 'now']]), 'escrow       1 ETH\nsubmittedAt  now')
  })

  it('fits maxWidth: text wraps at word boundaries and a hash too long for its column breaks over lines, whole', () => {
    const note = 'the solver missed its training deadline and the task went back to the pool'
    const text = renderTable(['KEY', 'VALUE'], [['proofRoot', hash], ['note', note]], {maxWidth: 40})
    const lines = text.split('\n')
    for (const line of lines) assert.ok(stringWidth(line) <= 40, `a ${stringWidth(line)}-column line: ${JSON.stringify(line)}`)
    assert.ok(lines.length > 3, text)
    assert.doesNotMatch(text, /…/, 'a value was cut short')
    const valueColumn = lines[0]!.indexOf('VALUE')
    const values = lines.slice(1).map((line) => line.slice(valueColumn))
    assert.equal(values.join('').replaceAll(' ', ''), `${hash}${note}`.replaceAll(' ', ''), 'the wrapped values do not add up to the cells')
    for (const word of note.split(' ')) assert.ok(values.some((value) => value.split(' ').includes(word)), `"${word}" was split over lines:\n${text}`)
  })

  it('with no width limit (stdout a pipe or a log), never wraps: one line per row however wide', () => {
    const text = renderTable(['KEY', 'VALUE'], [['proofRoot', `${hash} ${hash}`]], {maxWidth: Number.POSITIVE_INFINITY})
    assert.equal(text.split('\n').length, 2)
  })
})
