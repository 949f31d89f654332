import assert from 'node:assert/strict'

import {renderPriceChart} from './priceChart.js'

describe('renderPriceChart', () => {
  it('draws the price as a step function of time in gwei, with the time axis and the joins and leaves under it', () => {
    const gwei = 1_000_000_000n
    const chart = renderPriceChart(
      [
        {seconds: 0, price: 10_000n * gwei},
        {seconds: 10, price: 20_000n * gwei},
        {seconds: 20, price: 20_000n * gwei},
      ],
      {width: 21, height: 4, marks: [{seconds: 10, mark: 'join'}, {seconds: 20, mark: 'leave'}]},
    )
    const rows = chart.split('\n')
    const tick = rows[0]!.search(/[┤┼]/)
    // The top row is the high price, the bottom row of the plot the low one, both labelled in gwei.
    assert.match(rows[0]!, /^\s+20000 [┤┼]/)
    assert.match(rows[4]!, /^\s+10000 [┤┼]/)
    // One column a second: columns 0-9 are the first price (the bottom row), 10-20 the second (the top row).
    assert.equal(rows[4]!.slice(tick, tick + 11), '┼─────────╯')
    assert.equal(rows[0]!.slice(tick + 10, tick + 21), '╭──────────')
    assert.equal(rows[6], `${' '.repeat(tick)}0 s${' '.repeat(21 - 7)}20 s`)
    const marks = rows[7]!
    assert.equal(marks[tick + 10], '^')
    assert.equal(marks[tick + 20], 'v')
    assert.match(rows[8]!, /\^ a solver listed its offer \(joined\), v one withdrew it \(left\)/)
    assert.doesNotMatch(chart, /\u001b/, 'no colour codes')
  })

  it('says so when there is no price', () => {
    assert.equal(renderPriceChart([]), '(no price recorded)')
  })
})
