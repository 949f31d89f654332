import type {StoredRun} from '../runs/readRun.js'
import {type CellMetrics, cellMetrics, type SweepMetric, sweepMetrics} from './cellMetrics.js'
import type {SweepCell, SweepPlan, SweepValue} from './types.js'

/** How one cell ended: `ok`/`FAILED` (its expectations), `partial` (cut short) or `no report`. */
export type CellOutcome = {
  cell: SweepCell
  runId: string
  runDir: string
  result: 'ok' | 'FAILED' | 'partial' | 'no report'
  /** Why it is not ok: the first failure, the partial run's reason, or why there is no report. */
  reason: string | null
  /** Its figures; null for a run without a full report (not counted in the spread). */
  metrics: CellMetrics | null
}

/** A figure over the repeats of one combination: their mean, spread and count. */
export type MetricStat = {mean: number; min: number; max: number; sd: number | null; n: number}

/** One combination of the swept values and its figures over the repeats that have them. */
export type SweepGroup = {settings: Record<string, SweepValue>; runs: number; metrics: Record<SweepMetric, MetricStat | null>}

export type SweepSummary = {
  scenario: string
  seed: number
  axes: SweepPlan['axes']
  repeat: number
  cells: CellOutcome[]
  groups: SweepGroup[]
}

/** How a kept run folder reads as a cell's outcome. */
export function cellOutcome(cell: SweepCell, run: StoredRun): CellOutcome {
  const base = {cell, runId: run.id, runDir: run.dir}
  const {report} = run
  if (!report) return {...base, result: 'no report', reason: run.missingReport ?? null, metrics: null}
  if (report.partial) return {...base, result: 'partial', reason: report.partial.reason, metrics: null}
  return {...base, result: report.ok ? 'ok' : 'FAILED', reason: report.failures[0] ?? null, metrics: cellMetrics(report)}
}

/**
 * The sweep's table: per combination of values, each figure's mean, min, max and standard deviation over its
 * repeats. A run whose expectations failed still counts (a cheat that paid is a finding); one cut short does not.
 */
export function summarizeSweep(plan: SweepPlan, cells: readonly CellOutcome[]): SweepSummary {
  const groups = new Map<string, {settings: Record<string, SweepValue>; outcomes: CellOutcome[]}>()
  for (const outcome of cells) {
    const key = JSON.stringify(outcome.cell.settings)
    const group = groups.get(key) ?? {settings: outcome.cell.settings, outcomes: []}
    group.outcomes.push(outcome)
    groups.set(key, group)
  }
  return {
    scenario: plan.scenario.name,
    seed: plan.seed,
    axes: plan.axes,
    repeat: plan.repeat,
    cells: [...cells],
    groups: [...groups.values()].map(({settings, outcomes}) => {
      const measured = outcomes.flatMap((outcome) => (outcome.metrics ? [outcome.metrics] : []))
      const metrics = Object.fromEntries(sweepMetrics.map(({key}) => [key, stat(measured.map((metrics) => metrics[key]))])) as SweepGroup['metrics']
      return {settings, runs: measured.length, metrics}
    }),
  }
}

function stat(values: readonly (number | null)[]): MetricStat | null {
  const present = values.filter((value): value is number => value !== null)
  if (present.length === 0) return null
  const mean = present.reduce((sum, value) => sum + value, 0) / present.length
  const sd = present.length < 2 ? null : Math.sqrt(present.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (present.length - 1))
  return {mean, min: Math.min(...present), max: Math.max(...present), sd, n: present.length}
}
