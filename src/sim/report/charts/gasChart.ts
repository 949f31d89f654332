import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {gasPhases} from '../types.js'
import {emptyChart} from './renderSvg.js'

/** Gas per phase: one bar per phase, summed over every task and dispute of the run. */
export function gasChart(report: DevnetReport): TopLevelSpec {
  const title = 'Gas per phase (every transaction of the run)'
  const gas = report.history?.gas
  if (!gas) return emptyChart(title, 'no gas breakdown in this report')
  const values = gas.map((entry) => ({phase: entry.phase, gas: Number(entry.gas), label: formatGas(BigInt(entry.gas)), transactions: entry.transactions}))
  const x = {field: 'phase', type: 'nominal' as const, title: null, sort: [...gasPhases] as string[], axis: {labelAngle: 0}}
  return {
    title,
    width: {step: 110},
    height: 260,
    data: {values},
    layer: [
      {mark: {type: 'bar', color: '#4292c6'}, encoding: {x, y: {field: 'gas', type: 'quantitative', title: 'gas used'}}},
      {mark: {type: 'text', dy: -6, fontSize: 11}, encoding: {x, y: {field: 'gas', type: 'quantitative'}, text: {field: 'label', type: 'nominal'}}},
    ],
  }
}

/** 1234567 -> 1.23M, for labels; the tables keep the exact number. */
export function formatGas(gas: bigint): string {
  const value = Number(gas)
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`
  return String(value)
}
