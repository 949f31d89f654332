import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {TopLevelSpec} from 'vega-lite'

import {renderSvg} from './renderSvg.js'

/** Renders each chart to `<dir>/charts/<file>` (SVG) and returns the files written, in order. */
export async function writeChartFiles(dir: string, charts: readonly {file: string; spec: TopLevelSpec}[]): Promise<string[]> {
  await mkdir(path.join(dir, 'charts'), {recursive: true})
  const files: string[] = []
  for (const chart of charts) {
    const file = path.join(dir, 'charts', chart.file)
    await writeFile(file, await renderSvg(chart.spec))
    files.push(file)
  }
  return files
}
