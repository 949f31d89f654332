import {curveLabel} from './charts/trainingChart.js'
import type {TrainingCurve} from './types.js'

export const trainingColumns = ['proof', 'checkpoints', 'test loss (first -> last)', 'metric (last)', 'replayed segments', 'note'] as const

/** One row per committed proof: where its curve starts and ends, and what its verifiers replayed. */
export function trainingRow(curve: TrainingCurve): string[] {
  const scored = curve.points.filter((point) => point.testLoss !== null)
  const first = scored[0]
  const last = scored.at(-1)
  const matched = curve.replays.filter((replay) => replay.match).length
  const replays = curve.replays.length === 0 ? 'none' : `${curve.replays.map((replay) => `${replay.startStep}-${replay.endStep}`).join(', ')} (${matched}/${curve.replays.length} matched)`
  return [
    curveLabel(curve),
    String(curve.points.length),
    first && last ? `${fixed(first.testLoss)} -> ${fixed(last.testLoss)}` : '-',
    curve.metric === 'test accuracy' && last ? `accuracy ${fixed(last.testAccuracy)}` : '-',
    replays,
    curve.problem ?? '',
  ]
}

const fixed = (value: number | null) => (value === null ? '-' : value.toFixed(4))
