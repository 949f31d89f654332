import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {balancesChart} from './balancesChart.js'
import {detectionChart} from './detectionChart.js'
import {economicsChart} from './economicsChart.js'
import {gasChart} from './gasChart.js'
import {priceChart} from './priceChart.js'
import {renderSvg} from './renderSvg.js'
import {timelineChart} from './timelineChart.js'
import {whistleblowersChart} from './whistleblowersChart.js'
import {trainingChart} from './trainingChart.js'

/** Every chart of the report: its file under charts/, the alt text report.md gives it, and its spec. */
export const reportCharts = [
  {file: 'balances.svg', title: 'Balances over time per role', spec: balancesChart},
  {file: 'timeline.svg', title: 'Task timeline by phase', spec: timelineChart},
  {file: 'training.svg', title: 'Training curves per task', spec: trainingChart},
  {file: 'detection.svg', title: 'Detection matrix', spec: detectionChart},
  {file: 'gas.svg', title: 'Gas per phase', spec: gasChart},
  {file: 'price.svg', title: 'Price over time', spec: priceChart},
  {file: 'whistleblowers.svg', title: 'Active whistleblowers over time', spec: whistleblowersChart},
] as const satisfies readonly {file: string; title: string; spec: (report: DevnetReport) => TopLevelSpec}[]

export type ChartFile = (typeof reportCharts)[number]['file']

/** Renders every chart of a report to SVG text, keyed by file name. */
export async function renderCharts(report: DevnetReport): Promise<Map<ChartFile, string>> {
  const rendered = new Map<ChartFile, string>()
  for (const chart of reportCharts) rendered.set(chart.file, await renderSvg(chart.spec(report)))
  return rendered
}

export {balancesChart, detectionChart, economicsChart, gasChart, priceChart, renderSvg, timelineChart, trainingChart, whistleblowersChart}
