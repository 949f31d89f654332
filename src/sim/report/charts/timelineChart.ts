import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {taskPhases} from '../types.js'
import {emptyChart} from './renderSvg.js'

const phaseColors = ['#9ecae1', '#4292c6', '#fdae6b', '#e6550d', '#a1d99b']

/** Shortest bar drawn, in seconds: a phase over within one block still shows. */
const minimumWidth = 0.5

/** The task timeline: a gantt bar per task per phase (per attempt), and where each task ended. */
export function timelineChart(report: DevnetReport): TopLevelSpec {
  const title = 'Task timeline by phase'
  const timeline = report.history?.timeline
  if (!timeline || timeline.segments.length === 0) return emptyChart(title, 'no task reached the chain in this report')
  const label = (taskId: string) => `task ${taskId}`
  const tasks = [...new Set(timeline.segments.map((segment) => segment.taskId))]
  const bars = timeline.segments.map((segment) => ({
    task: label(segment.taskId),
    phase: segment.phase,
    attempt: segment.attempt,
    start: segment.start,
    end: Math.max(segment.end, segment.start + minimumWidth),
  }))
  const ends = timeline.ends.map((end) => ({task: label(end.taskId), seconds: end.seconds, outcome: end.outcome}))
  // Room on the right for the settled / expired labels.
  const last = Math.max(...bars.map((bar) => bar.end), ...ends.map((end) => end.seconds))
  const x = {field: 'start', type: 'quantitative' as const, title: 'chain time (s)', scale: {domain: [0, Math.ceil(last * 1.12 + 4)], nice: false}}
  const y = {field: 'task', type: 'nominal' as const, title: null, sort: tasks.map(label)}
  return {
    title,
    width: 560,
    height: {step: 28},
    layer: [
      {
        data: {values: bars},
        mark: {type: 'bar', height: {band: 0.7}},
        encoding: {
          y,
          x,
          x2: {field: 'end'},
          color: {field: 'phase', type: 'nominal', title: 'phase', scale: {domain: [...taskPhases], range: phaseColors}, legend: {orient: 'bottom', direction: 'horizontal'}},
        },
      },
      {
        data: {values: ends},
        mark: {type: 'text', align: 'left', dx: 4, fontSize: 11},
        encoding: {y, x: {...x, field: 'seconds'}, text: {field: 'outcome', type: 'nominal'}},
      },
    ],
  }
}
