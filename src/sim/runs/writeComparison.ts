import {writeFile} from 'node:fs/promises'
import path from 'node:path'

import {writeChartFiles} from '../report/charts/writeChartFiles.js'
import {compareCharts} from './compareCharts.js'
import {type Comparison, compareRuns} from './compareRuns.js'
import type {StoredRun} from './readRun.js'
import {renderComparison} from './renderComparison.js'

export type ComparisonFiles = {markdown: string; json: string; charts: string[]}

/** Compares two runs and writes compare.json, charts/*.svg (both runs overlaid) and compare.md to `out`. */
export async function writeComparison(a: StoredRun, b: StoredRun, out: string): Promise<{comparison: Comparison; files: ComparisonFiles}> {
  const comparison = compareRuns(a, b)
  const charts = compareCharts(a, b)
  const chartFiles = await writeChartFiles(out, charts)
  const json = path.join(out, 'compare.json')
  await writeFile(json, `${JSON.stringify(comparison, null, 2)}\n`)
  const markdown = path.join(out, 'compare.md')
  await writeFile(markdown, renderComparison(comparison, charts))
  return {comparison, files: {markdown, json, charts: chartFiles}}
}
