import {formatUnits} from 'viem'

import type {FeedKind} from './feedKind.js'

export type ActorEventUpdate = {
  /** The actor's new activity line; undefined keeps the old one. */
  activity?: string | undefined
  /** A training range to show as a bar; null clears it. */
  progress?: {taskId: string; step: number; from: number; steps: number} | null | undefined
  checkpoint?: {taskId: string; step: number} | undefined
  feed?: {kind: FeedKind; text: string} | undefined
}

/**
 * One actor JSON line (what `gensyn solve|verify|challenge --loop --json` and `submit --wait --json` print) as
 * the dashboard shows it: a short activity for the actor's row and, for the protocol's milestones, a feed line.
 * Payouts and slashes come from the chain instead (readChainView), where the amounts are.
 */
export function describeActorEvent(role: string, event: Record<string, unknown>): ActorEventUpdate {
  const task = `#${String(event.taskId ?? '?')}`
  switch (event.type) {
    case 'ready':
      return {activity: role === 'solver' ? 'ready' : 'watching the market'}
    case 'offer-listed':
      return {activity: `offer listed, ask ${gwei(event.ask)} gwei/WU`, feed: {kind: 'market', text: `listed an offer: ask ${gwei(event.ask)} gwei/WU, capacity ${String(event.capacity)}`}}
    case 'offer-withdrawn':
      return {activity: event.reason === 'leaving' ? 'leaving the market' : 'offer withdrawn (price low)', feed: {kind: 'market', text: `withdrew its offer at ${gwei(event.price)} gwei/WU`}}
    case 'leaving':
      return {activity: 'leaving the market'}
    case 'claimed':
      if (event.randomness !== undefined) return {activity: `verifying ${task}`, feed: {kind: 'claim', text: `claimed verification of ${task}`}}
      return {
        activity: `training ${task}`,
        progress: null,
        feed: {kind: 'claim', text: `claimed ${task}${event.price === undefined ? '' : ` at ${gwei(event.price)} gwei/WU`}`},
      }
    case 'resumed':
      return {activity: `training ${task} (resumed)`, feed: {kind: 'claim', text: `resumed ${task} from step ${String(event.step)}`}}
    case 'progress':
      return {
        activity: `training ${task}`,
        progress: {taskId: String(event.taskId), step: Number(event.step), from: Number(event.from ?? 0), steps: Number(event.steps)},
      }
    case 'checkpoint':
      return {checkpoint: {taskId: String(event.taskId), step: Number(event.step)}}
    case 'coin':
      return event.forced ? {feed: {kind: 'jackpot', text: `${task}: forced error drawn, committing a wrong proof`}} : {}
    case 'committed':
      // A whistleblower's commitment to a challenge has the same type as a solver's commit of its proof.
      if (role === 'whistleblower') return {activity: `committed a challenge of ${task}`}
      return {
        activity: `committed ${task}, awaiting verdict`,
        progress: null,
        feed: {kind: 'commit', text: `committed ${task}: ${String(event.checkpoints)} checkpoints in ${Number(event.trainingSeconds).toFixed(1)} s`},
      }
    case 'segment':
      return {activity: `${role === 'whistleblower' ? 're-checking' : 'verifying'} ${task}: segment ${String(event.segment)} ${event.match ? 'ok' : 'DIFFERS'}`}
    case 'verdict':
      return {
        activity: `verdict on ${task} posted`,
        feed: {kind: 'verdict', text: `verdict ${task}: ${event.accepted ? 'accepted' : `REJECTED (${String(event.reason ?? 'mismatch')})`}`},
      }
    case 'inconclusive':
    case 'skipped':
      return {activity: `${task} ${String(event.type)}`}
    case 'checking':
      return {activity: `re-checking ${task}`}
    case 'clean':
      return {activity: `${task} checked: clean`}
    case 'challenged':
      return {activity: `challenged ${task}`, feed: {kind: 'challenge', text: `CHALLENGED ${task}, segment ${String(event.segment)}`}}
    case 'rejection-disputed':
      return {activity: `disputing rejection of ${task}`, feed: {kind: 'challenge', text: `disputes the rejection of ${task}`}}
    case 'revealed':
      return {activity: `revealed forced error ${task}`, feed: {kind: 'jackpot', text: `revealed the forced error of ${task}`}}
    case 'joined':
      return {activity: 'whistleblowing'}
    case 'left':
      return {activity: 'idle (left whistleblowing)'}
    case 'expired':
      return {feed: {kind: 'timeout', text: `expired a timed-out claim on ${task}`}}
    case 'settle':
      return describeSettle(task, event.outcome as Record<string, unknown> | undefined)
    case 'dispute':
      return describeDispute(event.event as Record<string, unknown> | undefined)
    case 'warning':
      return {feed: {kind: 'error', text: `${task}: ${String(event.message)}`}}
    default:
      // A submitter's final result: what happened to each of its tasks.
      if (Array.isArray(event.tasks) && 'status' in event) {
        const tasks = event.tasks as Record<string, unknown>[]
        const summary = tasks.map((entry) => `#${String(entry.taskId)} ${String(entry.status)} ${String(entry.verdict)}`).join(', ')
        return {activity: `done: ${summary}`, feed: {kind: 'payout', text: `job done: ${summary}`}}
      }
      return {}
  }
}

function describeSettle(task: string, outcome: Record<string, unknown> | undefined): ActorEventUpdate {
  switch (outcome?.type) {
    case 'settled':
      return {activity: `settled ${task}`}
    case 'dispute-started':
      return {activity: `settling ${task}: dispute ${String(outcome.disputeId)}`, feed: {kind: 'dispute', text: `dispute ${String(outcome.disputeId)} started on ${task}`}}
    case 'reopened':
      return {activity: `settled ${task}: reopened`}
    default:
      return {}
  }
}

function describeDispute(inner: Record<string, unknown> | undefined): ActorEventUpdate {
  if (!inner) return {}
  const dispute = `dispute ${String(inner.disputeId)}`
  switch (inner.type) {
    case 'joined':
      return {activity: `${dispute}: ${String(inner.role)}`}
    case 'move':
      return {activity: `${dispute}: ${String(inner.phase)} ${String(inner.move)} ${String(inner.index)}`}
    case 'stalled':
      return {activity: `${dispute}: stalled`}
    case 'resolved':
      // The feed line comes from the market's DisputeResolved event: one per dispute, not one per party.
      return {activity: `${dispute}: ${inner.won === undefined ? 'resolved' : inner.won ? 'won' : 'lost'}`}
    case 'error':
      return {feed: {kind: 'error', text: `${dispute}: ${String(inner.message)}`}}
    default:
      return {}
  }
}

function gwei(value: unknown): string {
  try {
    return trimDecimals(formatUnits(BigInt(String(value)), 9), 2)
  } catch {
    return '?'
  }
}

/** `8660.68216768` -> `8660.68`: enough for a glance. */
export function trimDecimals(value: string, decimals: number): string {
  const [whole, fraction = ''] = value.split('.')
  const kept = fraction.slice(0, decimals).replace(/0+$/, '')
  return kept ? `${whole}.${kept}` : (whole ?? value)
}
