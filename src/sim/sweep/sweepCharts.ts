import type {TopLevelSpec} from 'vega-lite'

import {emptyChart} from '../report/charts/renderSvg.js'
import {sweepMetrics} from './cellMetrics.js'
import type {SweepSummary} from './summarizeSweep.js'
import type {SweepValue} from './types.js'

export type SweepChart = {file: string; title: string; spec: TopLevelSpec}

/**
 * One chart per sweep figure, against the swept parameters: the first axis along x, one line per combination of
 * the other axes; each point is the mean over the repeats and its bar spans their min to max.
 */
export function sweepCharts(summary: SweepSummary): SweepChart[] {
  const [first, ...others] = summary.axes
  const seriesTitle = others.map((axis) => axis.path).join(', ')
  const seriesOf = (settings: Record<string, SweepValue>) => others.map((axis) => `${axis.path}=${String(settings[axis.path])}`).join(', ')
  return sweepMetrics.map(({key, label, unit}) => {
    const title = `${label} (${unit})`
    const file = `${label.replaceAll(/\W+/g, '-')}.svg`
    const values = summary.groups.flatMap((group) => {
      const value = group.metrics[key]
      return value ? [{x: String(group.settings[first!.path]), series: seriesOf(group.settings), mean: value.mean, min: value.min, max: value.max, runs: value.n}] : []
    })
    if (!first || values.length === 0) return {file, title, spec: emptyChart(title, 'no run of the sweep measured this (see sweep.md)')}
    const color = others.length === 0 ? {} : {color: {field: 'series', type: 'nominal', title: seriesTitle, legend: {orient: 'bottom', direction: 'vertical'}}}
    const spec = {
      title,
      width: 360,
      height: 220,
      data: {values},
      encoding: {x: {field: 'x', type: 'ordinal', title: first.path, sort: first.values.map(String), axis: {labelAngle: 0}}, ...color},
      layer: [
        {mark: {type: 'rule', strokeWidth: 2, opacity: 0.6}, encoding: {y: {field: 'min', type: 'quantitative', title: `${label} (${unit})`, scale: {zero: false}}, y2: {field: 'max'}}},
        {mark: {type: 'line', point: {size: 60}}, encoding: {y: {field: 'mean', type: 'quantitative'}}},
      ],
    }
    return {file, title, spec: spec as TopLevelSpec}
  })
}
