import type {Spec} from 'vega'
import {compile, type TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {type ChartFile, reportCharts} from '../charts/index.js'
import {chartConfig} from '../charts/renderSvg.js'

/** The page element a chart is drawn into: `chart-` and its file's name (`chart-training`). */
export function chartElementId(file: ChartFile): string {
  return `chart-${file.replace(/\.svg$/, '')}`
}

/**
 * Every chart of the report as a vega spec, keyed by its element id: the same vega-lite specs as the SVGs,
 * compiled here in Node so the page needs only vega itself, with tooltips on every mark (the page is
 * interactive where the SVGs are not).
 */
export function compileChartSpecs(report: DevnetReport): Record<string, Spec> {
  const specs: Record<string, Spec> = {}
  for (const chart of reportCharts) {
    const spec = {config: {...chartConfig, mark: {tooltip: true}}, ...chart.spec(report)} as TopLevelSpec
    specs[chartElementId(chart.file)] = compile(spec).spec
  }
  return specs
}
