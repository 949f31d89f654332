import type {RunRecord} from '../runRecord.js'
import {type Figure, type FigureUnit, headlineFigures} from './headlineFigures.js'
import type {StoredRun} from './readRun.js'

export type ComparedRun = {
  id: string
  dir: string
  scenario: string
  startedAt: string | null
  /** `devnet up`'s flags as they took effect (run.json); null for runs recorded before it kept them. */
  parameters: RunRecord['parameters'] | null
}

/** One headline figure of both runs, as numbers (for scripts) and as printed, with B minus A. */
export type ComparedFigure = {
  name: string
  unit: FigureUnit
  a: Figure['value']
  b: Figure['value']
  /** B - A for numbers; null when either run lacks the figure or it is yes/no. */
  difference: number | null
  /** Printed: `0.5`, `yes`, `3 of 4 caught`..., and the difference: `+2 (+40%)`, `same`, `differs`, `-`. */
  text: {a: string; b: string; difference: string}
}

export type Comparison = {a: ComparedRun; b: ComparedRun; figures: ComparedFigure[]}

/**
 * Two runs side by side: every headline figure of either (a strategy only one run played still gets a row,
 * with `-` for the other) and the difference B - A.
 */
export function compareRuns(a: StoredRun, b: StoredRun): Comparison {
  const figuresA = headlineFigures(a)
  const figuresB = headlineFigures(b)
  const names = mergedNames(figuresA, figuresB)
  const figures = names.map((name): ComparedFigure => {
    const left = figuresA.find((figure) => figure.name === name)
    const right = figuresB.find((figure) => figure.name === name)
    const unit = (left ?? right)!.unit
    const [valueA, valueB] = [left?.value ?? null, right?.value ?? null]
    const difference = typeof valueA === 'number' && typeof valueB === 'number' ? valueB - valueA : null
    return {
      name,
      unit,
      a: valueA,
      b: valueB,
      difference,
      text: {a: shownValue(left, unit), b: shownValue(right, unit), difference: shownDifference(valueA, valueB, unit)},
    }
  })
  return {a: describeRun(a), b: describeRun(b), figures}
}

/** A's figures in order, with each of B's own (a strategy only B played) right after the figure it follows in B. */
function mergedNames(figuresA: readonly Figure[], figuresB: readonly Figure[]): string[] {
  const names = figuresA.map((figure) => figure.name)
  let after = -1
  for (const {name} of figuresB) {
    const at = names.indexOf(name)
    if (at === -1) names.splice(++after, 0, name)
    else after = at
  }
  return names
}

function describeRun(run: StoredRun): ComparedRun {
  const {record} = run
  return {id: run.id, dir: run.dir, scenario: record?.scenario.name ?? run.report?.scenario ?? '?', startedAt: record?.startedAt ?? null, parameters: record?.parameters ?? null}
}

/** A value as the tables print it; a detection row shows its counts, the numbers behind the rate. */
function shownValue(figure: Figure | undefined, unit: FigureUnit): string {
  if (figure === undefined || figure.value === null) return '-'
  if (typeof figure.value === 'boolean') return figure.value ? 'yes' : 'no'
  const number = formatNumber(figure.value, unit)
  return unit === '% caught' ? `${number}% (${figure.note})` : number
}

function shownDifference(a: Figure['value'], b: Figure['value'], unit: FigureUnit): string {
  if (a === null || b === null) return '-'
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b ? 'same' : 'differs'
  const difference = b - a
  if (difference === 0) return 'same'
  const sign = difference > 0 ? '+' : '-'
  const magnitude = formatNumber(Math.abs(difference), unit)
  if (unit === '% caught') return `${sign}${magnitude} pp`
  return a === 0 ? `${sign}${magnitude}` : `${sign}${magnitude} (${sign}${formatNumber((100 * Math.abs(difference)) / Math.abs(a), 's')}%)`
}

function formatNumber(value: number, unit: FigureUnit): string {
  if (unit === 'count' || unit === 'gas') return Math.round(value).toLocaleString('en-US')
  if (unit === 'ETH') return trimZeros(value.toFixed(6))
  if (unit === 'gwei') return trimZeros(value.toFixed(4))
  return trimZeros(value.toFixed(1))
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text
}
