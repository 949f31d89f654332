import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {detectionColumns} from '../types.js'
import {emptyChart} from './renderSvg.js'

const worked = 'as the protocol intends'
const failed = 'a miss or an honest actor slashed'
const none = 'nothing'

/**
 * The detection matrix as a table-like heatmap: a row per role and strategy, a cell per outcome with its
 * count, green where the protocol did its job (a cheat caught, an honest play left alone), red where it did
 * not, and who caught it in the last column.
 */
export function detectionChart(report: DevnetReport): TopLevelSpec {
  const title = 'Detection matrix: who cheated, who was caught, and by whom'
  const rows = report.history?.detection ?? []
  if (rows.length === 0) return emptyChart(title, 'no solver, verifier or whistleblower in this report')
  const byColumn = 'caught by'
  const cells = rows.flatMap((row) =>
    detectionColumns.map((column) => {
      const value = column === 'caught / slashed' ? row.caught : row.notCaught
      const good = row.adversarial === (column === 'caught / slashed')
      return {row: row.label, column, value, text: String(value), tone: value === 0 ? none : good ? worked : failed}
    }),
  )
  const catchers = rows.map((row) => ({
    row: row.label,
    column: byColumn,
    text: row.caughtBy.length === 0 ? '-' : row.caughtBy.map((catcher) => (catcher.count > 1 ? `${catcher.by} ×${catcher.count}` : catcher.by)).join(', '),
  }))
  const y = {field: 'row', type: 'nominal' as const, title: null, sort: rows.map((row) => row.label)}
  const columns: string[] = [...detectionColumns, byColumn]
  const x = {field: 'column', type: 'nominal' as const, title: null, sort: columns, axis: {orient: 'top' as const, labelAngle: 0}, scale: {domain: columns}}
  return {
    title,
    width: {step: 150},
    height: {step: 30},
    layer: [
      {
        data: {values: cells},
        mark: {type: 'rect', stroke: 'white', strokeWidth: 2},
        encoding: {y, x, color: {field: 'tone', type: 'nominal', title: 'outcome', scale: {domain: [worked, failed, none], range: ['#a1d99b', '#fc9272', '#f0f0f0']}}},
      },
      {
        data: {values: [...cells, ...catchers]},
        mark: {type: 'text', fontSize: 12},
        encoding: {y, x, text: {field: 'text', type: 'nominal'}},
      },
    ],
  }
}
