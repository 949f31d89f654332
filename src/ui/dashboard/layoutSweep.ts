import {fit, type Line, sectionLine, type Style} from './lines.js'
import {type SweepCellRow, sweepCounts, type SweepProgress, sweepRemainingMs} from './sweepProgress.js'

const stateStyles: Record<SweepCellRow['state'], Style> = {
  queued: {dimColor: true},
  running: {color: 'cyan'},
  ok: {color: 'green'},
  FAILED: {color: 'red'},
  partial: {color: 'yellow'},
  'no report': {color: 'red'},
}

/**
 * The sweep's section: a heading with how many cells are done, running and left, the elapsed time and an estimate
 * of what is left; then a row per cell, the running ones first (`▶` the one the rest of the dashboard shows), the
 * finished ones newest first, then the queued ones.
 */
export function sweepLines(progress: SweepProgress, following: string | undefined, width: number, now: number): {heading: Line; cells: Line[]} {
  const counts = sweepCounts(progress)
  const remaining = sweepRemainingMs(progress, now)
  // The counts and the time left first: on a narrow terminal the sweep's id is what gets cut.
  const parts = [
    `${counts.done}/${counts.total} cells done${counts.notOk > 0 ? ` (${counts.notOk} not ok)` : ''}`,
    `${counts.running} running`,
    durationText(now - progress.startedAt),
    ...(remaining === undefined || counts.done === counts.total ? [] : [`~${durationText(remaining)} left`]),
    ...(progress.skipped > 0 ? [`${progress.skipped} done earlier`] : []),
    progress.id,
  ]
  const order = (row: SweepCellRow) => (row.id === following ? 0 : row.state === 'running' ? 1 : row.state === 'queued' ? 3 : 2)
  const rows = [...progress.cells].sort((a, b) => order(a) - order(b) || (order(a) === 2 ? b.endedAt! - a.endedAt! : 0))
  return {heading: sectionLine('SWEEP', parts.join(' · '), width), cells: rows.map((row) => cellLine(row, row.id === following, width, now))}
}

function cellLine(row: SweepCellRow, followed: boolean, width: number, now: number): Line {
  const marker = followed ? '▶ ' : '  '
  const prefix = `${marker}${row.id.padEnd(7)} `
  const {state, detail} = statusText(row, now)
  // The label gives way to the state and its time; the detail (a phase, a reason) takes what is left.
  const labelWidth = Math.max(1, Math.min(row.label.length + 1, width - prefix.length - state.length - 1))
  return [
    {text: prefix, bold: followed},
    {text: `${fit(row.label, labelWidth - 1)} `, dimColor: row.state === 'queued'},
    {text: fit(`${state}${detail}`, width - prefix.length - labelWidth), ...stateStyles[row.state]},
  ]
}

function statusText(row: SweepCellRow, now: number): {state: string; detail: string} {
  if (row.state === 'queued') return {state: 'queued', detail: ''}
  const took = durationText((row.endedAt ?? now) - (row.startedAt ?? now))
  if (row.state === 'running') return {state: `running ${took}`, detail: row.detail ? ` · ${row.detail}` : ''}
  return {state: `${row.state} in ${took}`, detail: row.detail ? `: ${row.detail}` : ''}
}

/** `45s`, `3m05s`, `1h02m`. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`
}
