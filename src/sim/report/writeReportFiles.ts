import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import type {DevnetReport} from '../buildReport.js'
import {renderCharts} from './charts/index.js'
import {renderHtml} from './html/renderHtml.js'
import {renderMarkdown} from './renderMarkdown.js'

export type ReportFiles = {json: string; markdown: string; html: string; charts: string[]}

/**
 * Writes the report to `dir`: report.json (first: it is the record, and every other file can be rendered
 * again from it with `gensyn devnet report`), charts/*.svg, then report.md, which embeds the charts, and
 * report.html, the same with live charts and nothing outside the file. Each
 * file is written to a temporary name and renamed, so an interrupted write never leaves half a file.
 */
export async function writeReportFiles(dir: string, report: DevnetReport): Promise<ReportFiles> {
  const chartsDir = path.join(dir, 'charts')
  await mkdir(chartsDir, {recursive: true})
  const json = await writeReportJson(dir, report)
  const charts: string[] = []
  for (const [file, svg] of await renderCharts(report)) {
    const target = path.join(chartsDir, file)
    await writeAtomically(target, svg)
    charts.push(target)
  }
  const markdown = path.join(dir, 'report.md')
  await writeAtomically(markdown, renderMarkdown(report))
  const html = path.join(dir, 'report.html')
  await writeAtomically(html, await renderHtml(report))
  return {json, markdown, html, charts}
}

/** report.json alone: the record every other file renders from. */
export async function writeReportJson(dir: string, report: DevnetReport): Promise<string> {
  await mkdir(dir, {recursive: true})
  const json = path.join(dir, 'report.json')
  await writeAtomically(json, `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`)
  return json
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    await writeFile(temporary, text)
    await rename(temporary, file)
  } catch (error) {
    // A full disk leaves a cut-off temporary: remove it, the file it was to replace stays as it was.
    await rm(temporary, {force: true}).catch(() => {})
    throw error
  }
}
