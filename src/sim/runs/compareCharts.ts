import type {TopLevelSpec} from 'vega-lite'
import {formatUnits} from 'viem'

import {emptyChart} from '../report/charts/renderSvg.js'
import {gasPhases} from '../report/types.js'
import type {StoredRun} from './readRun.js'

/** Two runs to draw on one chart, each with the label its legend shows (`A: <run id>`). */
type Labelled = {label: string; run: StoredRun}

/** The overlaid charts of `devnet report --compare`: their files under charts/, titles and specs. */
export function compareCharts(a: StoredRun, b: StoredRun): {file: string; title: string; spec: TopLevelSpec}[] {
  const runs: Labelled[] = [
    {label: `A: ${a.id}`, run: a},
    {label: `B: ${b.id}`, run: b},
  ]
  return [
    {file: 'price.svg', title: 'Price over time, both runs', spec: priceOverlay(runs)},
    {file: 'gas.svg', title: 'Gas per phase, both runs', spec: groupedBars(runs, gasValues, {title: 'Gas per phase, both runs', sort: [...gasPhases], y: 'gas used'})},
    {file: 'detection.svg', title: 'Detection per strategy, both runs', spec: groupedBars(runs, detectionValues, {title: 'Detection per strategy, both runs (% of decided plays caught)', y: '% caught', labelAngle: -25})},
  ]
}

/** Both runs' posted price as step lines on one chain-time axis (each run's own seconds since its deployment). */
function priceOverlay(runs: readonly Labelled[]): TopLevelSpec {
  const title = 'Market price over time, both runs (gwei per work unit)'
  const values = runs.flatMap(({label, run}) =>
    (run.report?.market.series ?? []).map((point) => ({seconds: point.seconds, gwei: Number(formatUnits(BigInt(point.price), 9)), run: label})),
  )
  if (values.length === 0) return emptyChart(title, 'no price recorded in either run')
  return {
    title,
    width: 560,
    height: 260,
    data: {values},
    mark: {type: 'line', interpolate: 'step-after', strokeWidth: 2},
    encoding: {
      x: {field: 'seconds', type: 'quantitative', title: 'chain time since deployment (s)'},
      y: {field: 'gwei', type: 'quantitative', title: 'price (gwei per work unit)', scale: {zero: false}},
      color: {field: 'run', type: 'nominal', title: 'run', scale: {range: ['#4292c6', '#e6550d']}, legend: {orient: 'bottom', direction: 'vertical'}},
      // Dashed B, so the runs stay apart where the lines coincide and in print; one legend shows colour and dash.
      strokeDash: {field: 'run', type: 'nominal', title: 'run', scale: {range: [[1, 0], [6, 3]]}, legend: {orient: 'bottom', direction: 'vertical'}},
    },
  } as TopLevelSpec
}

type BarValue = {category: string; value: number; run: string}

function gasValues({label, run}: Labelled): BarValue[] | undefined {
  return run.report?.history?.gas.map((entry) => ({category: entry.phase, value: Number(entry.gas), run: label}))
}

function detectionValues({label, run}: Labelled): BarValue[] | undefined {
  return run.report?.history?.detection
    .filter((row) => row.caught + row.notCaught > 0)
    .map((row) => ({category: row.label, value: (100 * row.caught) / (row.caught + row.notCaught), run: label}))
}

/** One group of two bars (A, B) per category; a run without the data leaves its bars out and says so in the title. */
function groupedBars(
  runs: readonly Labelled[],
  valuesOf: (run: Labelled) => BarValue[] | undefined,
  axis: {title: string; y: string; sort?: string[]; labelAngle?: number},
): TopLevelSpec {
  const perRun = runs.map((run) => ({run, values: valuesOf(run)}))
  const values = perRun.flatMap(({values}) => values ?? [])
  if (values.length === 0) return emptyChart(axis.title, 'neither run has this data')
  const missing = perRun.filter(({values}) => values === undefined).map(({run}) => run.label.slice(0, 1))
  return {
    title: missing.length === 0 ? axis.title : `${axis.title} (not in run ${missing.join(', ')})`,
    width: {step: 110},
    height: 260,
    data: {values},
    mark: {type: 'bar'},
    encoding: {
      x: {field: 'category', type: 'nominal', title: null, ...(axis.sort ? {sort: axis.sort} : {}), axis: {labelAngle: axis.labelAngle ?? 0}},
      xOffset: {field: 'run', type: 'nominal'},
      y: {field: 'value', type: 'quantitative', title: axis.y},
      color: {field: 'run', type: 'nominal', title: 'run', scale: {range: ['#4292c6', '#e6550d']}, legend: {orient: 'bottom', direction: 'vertical'}},
    },
  } as TopLevelSpec
}
