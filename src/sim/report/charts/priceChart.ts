import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {emptyChart} from './renderSvg.js'

/** The posted price over time (a step line: it holds until the next update), with solvers joining and leaving. */
export function priceChart(report: DevnetReport): TopLevelSpec {
  const title = 'Market price over time (gwei per work unit)'
  const {series, offers} = report.market
  if (series.length === 0) return emptyChart(title, 'no price recorded in this report')
  const prices = series.map((point) => ({seconds: point.seconds, gwei: Number(BigInt(point.price)) / 1e9, source: point.source}))
  const events = offers.flatMap((offer) => offer.events.map((event) => ({seconds: event.seconds, event: event.type === 'listed' ? 'solver joined' : 'solver left', solver: offer.solver})))
  const x = {field: 'seconds', type: 'quantitative', title: 'chain time (s)'} as const
  return {
    title,
    width: 560,
    height: 260,
    layer: [
      {
        data: {values: prices},
        mark: {type: 'line', interpolate: 'step-after', strokeWidth: 2, color: '#4292c6'},
        encoding: {x, y: {field: 'gwei', type: 'quantitative', title: 'price (gwei per work unit)', scale: {zero: false}}},
      },
      ...(events.length === 0
        ? []
        : [
            {
              data: {values: events},
              mark: {type: 'rule', strokeDash: [4, 3]},
              encoding: {x, color: {field: 'event', type: 'nominal', title: 'offers', scale: {domain: ['solver joined', 'solver left'], range: ['#31a354', '#de2d26']}}},
            } as const,
          ]),
    ],
  } as TopLevelSpec
}
