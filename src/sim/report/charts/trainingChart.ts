import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import type {TrainingCurve} from '../types.js'
import {emptyChart} from './renderSvg.js'

const matched = 'replay matched'
const mismatched = 'replay did not match'
/** Proof lines: no green or red, which mark the replays. */
const proofColors = ['#4c78a8', '#f58518', '#b279a2', '#9d755d', '#72b7b2', '#eeca3b', '#ff9da6', '#bab0ac']

/** How a curve is named in the chart: task, proof, who made it, how it ended. */
export function curveLabel(curve: TrainingCurve): string {
  const who = curve.strategy === undefined || curve.strategy === 'honest' ? curve.solver : `${curve.solver} (${curve.strategy})`
  return `task ${curve.taskId} proof ${curve.proof}: ${who}, ${curve.verdict}`
}

/**
 * Each task's training curves: test loss and the task's metric at every checkpoint, a panel per task and
 * measure, a line per committed proof (a rejected cheat's beside the honest retraining), and a ring on each
 * checkpoint a verifier's replay ended at (green: the replay matched the proof, red: it did not).
 */
export function trainingChart(report: DevnetReport): TopLevelSpec {
  const title = 'Training curves: test loss and metric per checkpoint, verifier replays ringed'
  const curves = (report.history?.curves ?? []).filter((curve) => curve.points.some((point) => point.testLoss !== null))
  if (curves.length === 0) return emptyChart(title, report.history?.curves === undefined ? 'no training curves in this report' : 'no committed proof could be scored')
  const values = curves.flatMap((curve) => curveRows(curve))
  const x = {field: 'step', type: 'quantitative', title: 'step'} as const
  const y = {field: 'value', type: 'quantitative', title: null, scale: {zero: false}} as const
  // One colour scale (so one legend for the whole chart): a colour per proof, then green and red for the replays.
  const labels = curves.map(curveLabel)
  const color = {
    field: 'legend',
    type: 'nominal',
    title: 'proof / verifier replay',
    legend: {labelLimit: 520, titleLimit: 300},
    scale: {domain: [...labels, matched, mismatched], range: [...labels.map((_, index) => proofColors[index % proofColors.length]!), '#31a354', '#de2d26']},
  } as const
  return {
    title,
    data: {values},
    facet: {
      row: {field: 'task', type: 'nominal', title: null, sort: [...new Set(curves.map((curve) => `task ${curve.taskId}`))]},
      column: {field: 'measure', type: 'nominal', title: null, sort: ['test loss', 'test accuracy']},
    },
    spec: {
      width: 320,
      height: 170,
      layer: [
        {
          transform: [{filter: "datum.kind === 'point'"}],
          mark: {type: 'line', point: true},
          encoding: {x, y, color, tooltip: [{field: 'curve', title: 'proof'}, {field: 'step'}, {field: 'measure'}, {field: 'value', format: '.4f'}]},
        },
        {
          transform: [{filter: "datum.kind === 'replay' && isValid(datum.value)"}],
          mark: {type: 'point', size: 160, strokeWidth: 2.5, filled: false},
          encoding: {
            x,
            y,
            color,
            tooltip: [{field: 'curve', title: 'proof'}, {field: 'verifier'}, {field: 'segment'}, {field: 'start', title: 'from step'}, {field: 'step', title: 'to step'}, {field: 'replay'}],
          },
        },
      ],
    },
    resolve: {scale: {y: 'independent'}},
  } as TopLevelSpec
}

/** A curve as long-form rows: a point per checkpoint and measure, a replay per replayed segment and measure. */
function curveRows(curve: TrainingCurve): Record<string, unknown>[] {
  const curveName = curveLabel(curve)
  const measures = curve.metric === 'test accuracy' ? (['test loss', 'test accuracy'] as const) : (['test loss'] as const)
  const valueOf = (step: number, measure: (typeof measures)[number]) => {
    const point = curve.points.find((candidate) => candidate.step === step)
    return (measure === 'test loss' ? point?.testLoss : point?.testAccuracy) ?? null
  }
  return measures.flatMap((measure) => [
    ...curve.points.map((point) => ({kind: 'point', task: `task ${curve.taskId}`, curve: curveName, legend: curveName, measure, step: point.step, value: valueOf(point.step, measure)})),
    ...curve.replays.map((replay) => ({
      kind: 'replay',
      task: `task ${curve.taskId}`,
      curve: curveName,
      measure,
      start: replay.startStep,
      step: replay.endStep,
      value: valueOf(replay.endStep, measure),
      verifier: replay.verifier,
      segment: replay.segment,
      replay: replay.match ? 'matched' : 'did not match',
      legend: replay.match ? matched : mismatched,
    })),
  ])
}
