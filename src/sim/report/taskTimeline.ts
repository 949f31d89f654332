import {type MarketLogEntry, taskIdOf} from './readMarketLog.js'
import type {TaskPhase, TaskTimeline, TimelineSegment} from './types.js'

/** The event that moves a task into a phase (TaskReopened starts a new attempt). */
const entering: Record<string, TaskPhase> = {
  TaskSubmitted: 'submitted',
  TaskReopened: 'submitted',
  TaskClaimed: 'claimed',
  ProofCommitted: 'committed',
  VerificationReopened: 'committed',
  VerificationClaimed: 'verifying',
  VerdictPosted: 'challenge window',
}

/**
 * Each task's phases over time, from the market's events: a segment per phase per attempt, from the event
 * that entered it to the one that left it (a task still in a phase at the head ends there, `open`). The
 * challenge window runs from the verdict to the settlement, so it includes the reveal window and any dispute.
 */
export function taskTimeline(entries: readonly MarketLogEntry[], head: {block: bigint; seconds: number}): TaskTimeline {
  const segments: TimelineSegment[] = []
  const ends: TaskTimeline['ends'] = []
  const current = new Map<string, {phase: TaskPhase; attempt: number; block: bigint; seconds: number}>()
  const close = (taskId: string, block: bigint, seconds: number, open = false) => {
    const state = current.get(taskId)
    current.delete(taskId)
    // A phase entered and left in one block (a rejection and its reopening) has no length to draw.
    if (!state || (state.block === block && !open)) return
    segments.push({taskId, attempt: state.attempt, phase: state.phase, startBlock: state.block.toString(), endBlock: block.toString(), start: state.seconds, end: seconds, open})
  }
  for (const entry of entries) {
    const taskId = taskIdOf(entry)
    if (taskId === undefined) continue
    const phase = entering[entry.eventName]
    if (phase) {
      const attempt = (current.get(taskId)?.attempt ?? lastAttempt(segments, taskId)) + (entry.eventName === 'TaskReopened' ? 1 : 0)
      close(taskId, entry.block, entry.seconds)
      current.set(taskId, {phase, attempt: Math.max(attempt, 1), block: entry.block, seconds: entry.seconds})
    } else if (entry.eventName === 'TaskSettled' || entry.eventName === 'TaskExpired') {
      close(taskId, entry.block, entry.seconds)
      ends.push({taskId, outcome: entry.eventName === 'TaskSettled' ? 'settled' : 'expired', block: entry.block.toString(), seconds: entry.seconds})
    }
  }
  for (const taskId of [...current.keys()]) close(taskId, head.block, head.seconds, true)
  const byTask = (a: {taskId: string}, b: {taskId: string}) => Number(BigInt(a.taskId) - BigInt(b.taskId))
  return {segments: segments.sort((a, b) => byTask(a, b) || a.start - b.start), ends: ends.sort(byTask)}
}

function lastAttempt(segments: readonly TimelineSegment[], taskId: string): number {
  return segments.filter((segment) => segment.taskId === taskId).at(-1)?.attempt ?? 0
}
