import {writeFile} from 'node:fs/promises'
import path from 'node:path'

import {writeChartFiles} from '../report/charts/writeChartFiles.js'
import {renderSweep} from './renderSweep.js'
import type {SweepSummary} from './summarizeSweep.js'
import {sweepCharts} from './sweepCharts.js'

export type SweepFiles = {markdown: string; json: string; charts: string[]}

/** Writes sweep.json (every cell and the table's figures), charts/*.svg and sweep.md into the sweep's folder. */
export async function writeSweep(dir: string, summary: SweepSummary, about: {id: string; command: string}): Promise<SweepFiles> {
  const charts = sweepCharts(summary)
  const chartFiles = await writeChartFiles(dir, charts)
  const json = path.join(dir, 'sweep.json')
  await writeFile(json, `${JSON.stringify({id: about.id, command: about.command, ...summary}, null, 2)}\n`)
  const markdown = path.join(dir, 'sweep.md')
  await writeFile(markdown, renderSweep(summary, {...about, charts}))
  return {markdown, json, charts: chartFiles}
}
