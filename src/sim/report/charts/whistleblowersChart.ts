import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {emptyChart} from './renderSvg.js'

/**
 * Active whistleblowers over time (a step line: the count holds until the next join or leave), with a point per
 * join and leave named by who: how the payout rule (docs/economics.md) moved participation during the run.
 */
export function whistleblowersChart(report: DevnetReport): TopLevelSpec {
  const title = 'Active whistleblowers over time'
  const points = report.history?.whistleblowers ?? []
  if (points.length === 0) return emptyChart(title, 'no whistleblower joined or left in this report')
  // the count holds from the last change to the end of the run (the last balance sample)
  const last = points.at(-1) as (typeof points)[number]
  const end = Math.max(last.seconds, report.history?.balances.samples.at(-1)?.seconds ?? 0)
  const series = [{seconds: 0, active: 0}, ...points.map((point) => ({seconds: point.seconds, active: point.active})), {seconds: end, active: last.active}]
  const changes = points.map((point) => ({seconds: point.seconds, active: point.active, change: point.joined ? 'joined' : 'left', account: point.account}))
  const x = {field: 'seconds', type: 'quantitative', title: 'chain time (s)'} as const
  return {
    title,
    width: 560,
    height: 220,
    layer: [
      {data: {values: series}, mark: {type: 'line', interpolate: 'step-after', strokeWidth: 2, color: '#6a51a3'}, encoding: {x, y: {field: 'active', type: 'quantitative', title: 'active whistleblowers', axis: {tickMinStep: 1}}}},
      {
        data: {values: changes},
        mark: {type: 'point', filled: true, size: 70},
        encoding: {
          x,
          y: {field: 'active', type: 'quantitative'},
          color: {field: 'change', type: 'nominal', title: 'change', scale: {domain: ['joined', 'left'], range: ['#31a354', '#de2d26']}},
          tooltip: [{field: 'account'}, {field: 'change'}],
        },
      },
    ],
  } as TopLevelSpec
}
