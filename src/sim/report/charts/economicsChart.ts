import type {TopLevelSpec} from 'vega-lite'

import type {EconomicsSweep} from '../../../economics/index.js'
import {emptyChart} from './renderSvg.js'

/**
 * Expected profit of each strategy against honest play (ETH per task) as the swept parameter moves, with a
 * rule at zero: a curve above it is a strategy that pays (`gensyn economics --sweep`, docs/economics.md).
 */
export function economicsChart(sweep: EconomicsSweep, job: string): TopLevelSpec {
  const title = `${job}: expected profit of cheating per task against ${sweep.path}`
  const values = sweep.points.flatMap((point) => point.rows.filter((row) => row.strategy !== 'honest').map((row) => ({value: point.value, strategy: row.strategy, eth: row.expectedProfit / 1e18})))
  if (values.length === 0) return emptyChart(title, 'no points in this sweep')
  return {
    title,
    width: 560,
    height: 300,
    layer: [
      {
        data: {values},
        mark: {type: 'line', point: true, strokeWidth: 2},
        encoding: {
          x: {field: 'value', type: 'quantitative', title: sweep.path},
          y: {field: 'eth', type: 'quantitative', title: 'expected profit vs honest (ETH per task)'},
          color: {field: 'strategy', type: 'nominal', title: 'strategy'},
        },
      },
      {data: {values: [{zero: 0}]}, mark: {type: 'rule', strokeDash: [4, 3], color: '#444'}, encoding: {y: {field: 'zero', type: 'quantitative'}}},
    ],
  } as TopLevelSpec
}
