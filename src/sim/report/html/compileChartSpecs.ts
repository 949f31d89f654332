import type {Spec} from 'vega'
import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {type ChartFile, reportCharts} from '../charts/index.js'
import {chartConfig} from '../charts/renderSvg.js'

/** The page element a chart is drawn into: `chart-` and its file's name (`chart-training`). */
export function chartElementId(file: ChartFile): string {
  return `chart-${file.replace(/\.svg$/, '')}`
}

/** The charts over chain time, which zoom and pan along it in the page (drag to pan, wheel to zoom, double-click to reset). */
const overTime: readonly ChartFile[] = ['balances.svg', 'timeline.svg', 'price.svg']

/**
 * Every chart of the report as a vega spec, keyed by its element id: the same vega-lite specs as the SVGs,
 * compiled here in Node so the page needs only vega itself, with tooltips on every mark and the time charts
 * zoomable (the page is interactive where the SVGs are not). vega-lite loads here, when a report is written, not
 * at every CLI start.
 */
export async function compileChartSpecs(report: DevnetReport): Promise<Record<string, Spec>> {
  const {compile} = await import('vega-lite')
  const specs: Record<string, Spec> = {}
  for (const chart of reportCharts) {
    const spec = {config: {...chartConfig, mark: {tooltip: true}}, ...chart.spec(report)} as TopLevelSpec
    specs[chartElementId(chart.file)] = compile(overTime.includes(chart.file) ? zoomable(spec) : spec).spec
  }
  return specs
}

/** An x-axis zoom bound to the scales, on the spec's unit (or its first layer: the layers share the x scale). */
function zoomable(spec: TopLevelSpec): TopLevelSpec {
  const zoom = {name: 'zoom', select: {type: 'interval', encodings: ['x']}, bind: 'scales'}
  const target = 'layer' in spec && Array.isArray(spec.layer) ? spec.layer[0] : spec
  // an empty chart (a text mark saying what is missing) has no x to zoom
  if (target === undefined || !('encoding' in target) || target.encoding?.x === undefined) return spec
  if ('layer' in spec && Array.isArray(spec.layer)) return {...spec, layer: [{...spec.layer[0], params: [zoom]}, ...spec.layer.slice(1)]} as TopLevelSpec
  return {...spec, params: [zoom]} as TopLevelSpec
}
