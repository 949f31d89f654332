import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {XMLParser, XMLValidator} from 'fast-xml-parser'

import {repoRoot} from '../../../../test/helpers/cli.js'
import type {DevnetReport} from '../../buildReport.js'
import {renderMarkdown} from '../renderMarkdown.js'
import {gasPhases, taskPhases} from '../types.js'
import {balancesChart, detectionChart, gasChart, priceChart, renderSvg, reportCharts, timelineChart, trainingChart, whistleblowersChart} from './index.js'
import {curveLabel} from './trainingChart.js'

/** Real reports written by `gensyn devnet up` (smoke.yaml, colluding.yaml) with this renderer's data. */
const fixture = (name: string) => JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/reports', `${name}.json`), 'utf8')) as DevnetReport
const smoke = fixture('smoke')
const colluding = fixture('colluding')
/** cheater.yaml: a skip-steps proof rejected, then an honest one accepted, with the training curves of both. */
const cheater = fixture('cheater')

/** Well-formed XML with an <svg> root, and every text it draws. */
function checkSvg(svg: string): string[] {
  assert.equal(XMLValidator.validate(svg), true, 'the SVG is not well-formed XML')
  const parsed = new XMLParser({ignoreAttributes: false}).parse(svg) as Record<string, unknown>
  assert.deepEqual(Object.keys(parsed), ['svg'])
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((match) => decode(match[1]!))
}

function decode(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&')
}

/** The data marks of a rect layer (bars, heatmap cells): one <path> per datum. */
function rectMarks(svg: string): number {
  return [...svg.matchAll(/<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)].reduce((sum, match) => sum + (match[1]!.match(/<path/g)?.length ?? 0), 0)
}

describe('report charts (vega-lite -> SVG, no browser)', function () {
  this.timeout(60_000)

  for (const [name, report] of [['smoke', smoke], ['colluding', colluding]] as const) {
    describe(`from the ${name} run`, () => {
      it('balances.svg: a line per role, each role named', async () => {
        const texts = checkSvg(await renderSvg(balancesChart(report)))
        const roles = new Set(report.history!.balances.accounts.map((account) => account.role))
        for (const role of roles) assert.ok(texts.includes(role), `role ${role} not shown`)
        assert.ok(report.history!.balances.samples.length > 2)
      })

      it('timeline.svg: a bar per task per phase, each task and phase labelled', async () => {
        const svg = await renderSvg(timelineChart(report))
        const texts = checkSvg(svg)
        const {segments, ends} = report.history!.timeline
        assert.equal(rectMarks(svg), segments.length)
        for (const task of report.tasks) assert.ok(texts.includes(`task ${task.id}`), `task ${task.id} not shown`)
        for (const phase of new Set(segments.map((segment) => segment.phase))) assert.ok(texts.includes(phase), `phase ${phase} not shown`)
        for (const end of ends) assert.ok(texts.includes(end.outcome))
        // Every task that settled went through every phase, in order.
        const settled = report.tasks.filter((task) => task.status === 'Settled').map((task) => task.id)
        for (const id of settled) {
          const phases = segments.filter((segment) => segment.taskId === id).map((segment) => segment.phase)
          assert.deepEqual(phases.slice(-taskPhases.length), [...taskPhases], `task ${id}: ${phases.join(', ')}`)
        }
      })

      it('detection.svg: a row per strategy with its counts and catchers', async () => {
        const svg = await renderSvg(detectionChart(report))
        const texts = checkSvg(svg)
        const rows = report.history!.detection
        assert.equal(rectMarks(svg), rows.length * 2)
        for (const row of rows) {
          assert.ok(texts.includes(row.label), `row ${row.label} not shown`)
          for (const catcher of row.caughtBy) assert.ok(texts.some((text) => text.includes(catcher.by)), `catcher ${catcher.by} not shown`)
        }
        for (const column of ['caught / slashed', 'not caught', 'caught by']) assert.ok(texts.includes(column))
      })

      it('gas.svg: a bar per phase, each labelled', async () => {
        const svg = await renderSvg(gasChart(report))
        const texts = checkSvg(svg)
        assert.equal(rectMarks(svg), gasPhases.length)
        for (const phase of gasPhases) assert.ok(texts.includes(phase), `phase ${phase} not shown`)
      })

      it('price.svg: the price line and the solvers joining', async () => {
        const svg = await renderSvg(priceChart(report))
        const texts = checkSvg(svg)
        assert.match(svg, /class="mark-line role-mark/)
        assert.ok(texts.includes('solver joined'))
      })

      it('report.md embeds every chart', () => {
        const markdown = renderMarkdown(report)
        for (const chart of reportCharts) assert.ok(markdown.includes(`](charts/${chart.file})`), `${chart.file} not linked`)
        for (const task of report.tasks) assert.match(markdown, new RegExp(`^\\| ${task.id} \\|`, 'm'))
      })
    })
  }

  it('the colluding run: the cheater and the colluding verifier caught by the whistleblower, the honest left alone', () => {
    const rows = new Map(colluding.history!.detection.map((row) => [row.label, row]))
    for (const label of ['solver: skip-steps', 'verifier: colluding']) {
      const row = rows.get(label)
      assert.ok(row, `no row ${label}`)
      assert.ok(row.caught >= 1, `${label} not caught`)
      assert.deepEqual(row.caughtBy.map((catcher) => catcher.by), ['whistleblower-1'])
    }
    for (const row of colluding.history!.detection.filter((candidate) => !candidate.adversarial)) assert.equal(row.caught, 0, `${row.label} was caught`)
    assert.ok(BigInt(colluding.history!.gas.find((entry) => entry.phase === 'challenge/dispute')!.gas) > 0n)
  })

  it('whistleblowers.svg: the active count as a step line, a point per join and leave, and its section in report.md', async () => {
    const points = [
      {seconds: 2, block: '10', account: 'whistleblower-1', joined: true, active: 1},
      {seconds: 3, block: '12', account: 'whistleblower-2', joined: true, active: 2},
      {seconds: 9, block: '30', account: 'whistleblower-1', joined: false, active: 1},
    ]
    const report: DevnetReport = {...smoke, history: {...smoke.history!, whistleblowers: points}}
    const svg = await renderSvg(whistleblowersChart(report))
    const texts = checkSvg(svg)
    assert.match(svg, /class="mark-line role-mark/)
    for (const text of ['joined', 'left', 'active whistleblowers', 'Active whistleblowers over time']) assert.ok(texts.includes(text), `${text} not drawn: ${texts.join(' | ')}`)
    assert.match(renderMarkdown(report), /^2 join\(s\), 1 leave\(s\); at most 2 active, 1 at the end\./m)
    assert.match(renderMarkdown({...smoke, history: {...smoke.history!, whistleblowers: []}}), /^No whistleblower joined or left\.$/m)
  })

  it('the cheater run: a curve per committed proof, scored on the test set, with the replays that caught the cheat', () => {
    const curves = cheater.history!.curves!
    assert.deepEqual(
      curves.map((curve) => [curve.proof, curve.solver, curve.strategy, curve.verdict]),
      [
        [1, 'cheater-1', 'skip-steps', 'rejected'],
        [2, 'solver-1', 'honest', 'accepted'],
      ],
    )
    for (const curve of curves) {
      assert.deepEqual(curve.points.map((point) => point.step), [0, 50, 100, 150, 200])
      assert.equal(curve.metric, 'test accuracy')
      // Training lowers the test loss: the last checkpoint scores better than the first (random weights).
      assert.ok(curve.points.at(-1)!.testLoss! < curve.points[0]!.testLoss! / 2, curveLabel(curve))
    }
    assert.ok(curves[0]!.replays.some((replay) => !replay.match), 'the rejected proof has no failed replay')
    assert.ok(curves[1]!.replays.length > 0 && curves[1]!.replays.every((replay) => replay.match))
    // The delivered model's accuracy, measured by the submitter on its own, is the accepted curve's last point.
    assert.equal(curves[1]!.points.at(-1)!.testAccuracy, cheater.tasks[0]!.testAccuracy)
  })

  it('training.svg: a line per proof and measure, each proof named, replays in the legend', async () => {
    const svg = await renderSvg(trainingChart(cheater))
    const texts = checkSvg(svg)
    const lines = [...svg.matchAll(/<g class="mark-line role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)].reduce((sum, match) => sum + (match[1]!.match(/<path/g)?.length ?? 0), 0)
    assert.equal(lines, cheater.history!.curves!.length * 2)
    for (const label of [...cheater.history!.curves!.map(curveLabel), 'replay matched', 'replay did not match', 'test loss', 'test accuracy']) {
      assert.ok(texts.some((text) => text === label || (text.endsWith('…') && label.startsWith(text.slice(0, -1)))), `${label} not shown: ${texts.join(' | ')}`)
    }
  })

  it('a report without history (an older report.json) still renders every chart, saying what is missing', async () => {
    const {history: _history, ...old} = smoke
    const bare: DevnetReport = {...old, market: {...smoke.market, series: []}}
    for (const chart of reportCharts) {
      const texts = checkSvg(await renderSvg(chart.spec(bare)))
      assert.ok(texts.some((text) => /^no .* in this report$/.test(text)), `${chart.file}: ${texts.join(' | ')}`)
    }
  })
})
