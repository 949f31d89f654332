import {readFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import path from 'node:path'

import type {DevnetReport} from '../../buildReport.js'
import {renderMarkdown} from '../renderMarkdown.js'
import {chartElementId, compileChartSpecs} from './compileChartSpecs.js'
import {pageScript, pageStyle} from './pageParts.js'

// vega exports only its ES module; the browser build (a classic script defining `vega`) sits beside it.
const vegaBrowserBuild = path.join(path.dirname(createRequire(import.meta.url).resolve('vega')), 'vega.min.js')

/**
 * report.html: report.md's text and tables as HTML, with every chart live (vega, inlined from node_modules,
 * draws the compiled specs in the page), in one file that opens with no network.
 */
export async function renderHtml(report: DevnetReport): Promise<string> {
  const vega = await readFile(vegaBrowserBuild, 'utf8')
  // vega gives the container its own role and label (the chart's title is drawn in it)
  const markdown = renderMarkdown(report, {chart: (file) => `<div class="chart" id="${chartElementId(file)}"></div>`})
  const body = await markdownToHtml(markdown)
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(`Devnet report: ${report.scenario}`)}</title>`,
    `<style>${pageStyle}</style>`,
    `<script>${vega}</script>`,
    '</head><body><main>',
    body,
    '</main>',
    `<script type="application/json" id="chart-specs">${scriptSafeJson(await compileChartSpecs(report))}</script>`,
    `<script>${pageScript}</script>`,
    '</body></html>',
    '',
  ].join('\n')
}

/**
 * Markdown to HTML, where the only raw HTML let through is the chart placeholders: any other tag in the text
 * (an actor named `<role>-account-<index>`, an error message) is shown as text, not parsed.
 */
async function markdownToHtml(markdown: string): Promise<string> {
  // loaded when a report is written, not at every CLI start
  const {Marked} = await import('marked')
  const marked = new Marked({gfm: true})
  marked.use({renderer: {html: ({text}) => (/^<div class="chart" id="chart-[a-z]+"><\/div>\s*$/.test(text) ? text : escapeHtml(text))}})
  return marked.parse(markdown)
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')
}

/** JSON inside a <script>: `<` escaped, so no string in it can close the element. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c')
}
