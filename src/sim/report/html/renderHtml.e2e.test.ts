import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {openInChromium, requireChromium} from '../../../../test/helpers/chromium.js'
import {repoRoot} from '../../../../test/helpers/cli.js'
import type {DevnetReport} from '../../buildReport.js'
import {reportCharts} from '../charts/index.js'
import {loadReportFile} from '../loadReportFile.js'
import {writeReportFiles} from '../writeReportFiles.js'
import {chartElementId, compileChartSpecs} from './compileChartSpecs.js'
import {renderHtml} from './renderHtml.js'

/** A real report of `gensyn devnet up --scenario fixtures/scenarios/cheater.yaml`: two proofs of one task, curves and replays. */
const fixture = path.join(repoRoot, 'test/fixtures/reports/cheater.json')

/** Each chart's container in a page's DOM: the SVG vega drew there, its size, and its data marks. */
function chartsIn(dom: string): Map<string, {width: number; height: number; marks: number; svg: string}> {
  const charts = new Map<string, {width: number; height: number; marks: number; svg: string}>()
  for (const match of dom.matchAll(/<div class="chart[^"]*" id="(chart-[a-z]+)"[^>]*>(.*?)<\/div>/gs)) {
    const svg = match[2]!
    const size = /<svg[^>]* width="([\d.]+)" height="([\d.]+)"/.exec(svg)
    // A data mark is a `role-mark` group with something drawn in it (axes, legends and titles have other roles).
    const marks = [...svg.matchAll(/<g class="mark-[a-z]+ role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)].filter((group) => /<(path|text|line)\b/.test(group[1]!)).length
    charts.set(match[1]!, {width: Number(size?.[1] ?? 0), height: Number(size?.[2] ?? 0), marks, svg})
  }
  return charts
}

describe('report.html', function () {
  this.timeout(180_000)
  let report: DevnetReport
  let dir: string
  let html: string

  before(async () => {
    report = await loadReportFile(fixture)
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-html-'))
    const files = await writeReportFiles(dir, report)
    assert.equal(files.html, path.join(dir, 'report.html'))
    html = await readFile(files.html, 'utf8')
  })

  after(() => rm(dir, {recursive: true, force: true}))

  it('is one file: vega inlined, nothing fetched from anywhere else', () => {
    assert.match(html, /\.vega=\{\}/, 'vega is not inlined')
    const outsideScripts = html.replaceAll(/<script[^>]*>.*?<\/script>/gs, '').replaceAll(/<style>.*?<\/style>/gs, '')
    assert.doesNotMatch(outsideScripts, /\s(src|href)=/, 'the page links to another file')
    assert.doesNotMatch(html, /<script[^>]+src=/)
    assert.doesNotMatch(html, /<link\b/)
    for (const chart of reportCharts) assert.ok(html.includes(`<div class="chart" id="${chartElementId(chart.file)}"></div>`), `${chart.file} has no place in the page`)
  })

  it('has the tables as HTML, and shows markup in a name as text', async () => {
    assert.match(html, /<table>/)
    assert.match(html, /<th>proof<\/th>/)
    const hostile = {...report, accounts: report.accounts.map((account, index) => (index === 1 ? {...account, name: '<img src=x onerror=alert(1)>'} : account))}
    const page = await renderHtml(hostile)
    assert.ok(page.includes('&lt;img src=x onerror=alert(1)&gt;'))
    assert.ok(!page.includes('<img src=x'))
  })

  it('makes the charts over chain time zoomable along it, and still compiles a report with nothing to zoom', async () => {
    const zoomable = (specs: Record<string, unknown>) => Object.keys(specs).filter((id) => JSON.stringify(specs[id]).includes('"name":"zoom"'))
    assert.deepEqual(zoomable(await compileChartSpecs(report)).sort(), ['chart-balances', 'chart-price', 'chart-timeline'])
    const {history: _history, ...old} = report
    assert.deepEqual(zoomable(await compileChartSpecs({...old, market: {...report.market, series: []}})), [])
  })

  it('draws every chart in headless chromium, with marks, and the page logs nothing', async function () {
    const chromium = await requireChromium(this)
    const {dom, console: logged} = await openInChromium(chromium, path.join(dir, 'report.html'), ['--dump-dom'])
    assert.deepEqual(logged, [], 'the page logged')
    assert.match(dom, new RegExp(`data-charts-rendered="${reportCharts.length}/${reportCharts.length}"`))
    assert.match(dom, /data-errors="\[\]"/)
    const charts = chartsIn(dom)
    for (const chart of reportCharts) {
      const drawn = charts.get(chartElementId(chart.file))
      assert.ok(drawn, `${chart.file}: nothing drawn`)
      assert.ok(drawn.width > 0 && drawn.height > 0, `${chart.file}: ${drawn.width}x${drawn.height}`)
      assert.ok(drawn.marks > 0, `${chart.file}: no marks`)
    }
    // The training chart: a line per proof and measure, and the replays of both verdicts marked.
    const curves = report.history!.curves!
    const cells = curves.reduce((sum, curve) => sum + (curve.metric === 'test accuracy' ? 2 : 1), 0)
    const training = charts.get('chart-training')!.svg
    assert.equal(training.match(/<g class="mark-line role-mark/g)?.length, cells)
    assert.ok(curves.some((curve) => curve.replays.some((replay) => !replay.match)) && training.includes('#de2d26'), 'no failed replay marked')
    assert.ok(training.includes('#31a354'), 'no matched replay marked')
  })
})
