import type {ChallengeOnceEvent} from '../actors/challengeOnce.js'
import type {SolverEvent} from '../actors/solver.js'
import type {VerifierEvent} from '../actors/verifier.js'
import type {WhistleblowerEvent} from '../actors/whistleblower.js'
import type {DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import type {SettleOutcome} from '../protocol/marketActions.js'

// What each role waits for after an event, for the status line (src/ui/waitStatus.ts): a string says what it now
// waits on, null that it is busy (training, replaying: a bar or the event lines show it), undefined that the event
// changes nothing. The role loops poll the chain between events, so the last event says what they poll for.

const OPEN_TASK = 'waiting for an open task to claim'
const COMMITTED_TASK = 'waiting for a committed proof to verify'
const ACCEPTED_TASK = 'watching for accepted tasks in their challenge window'

export function solverWait(event: SolverEvent): string | null | undefined {
  switch (event.type) {
    case 'ready':
    case 'offer-listed':
    case 'lost-race':
    case 'expired':
      return OPEN_TASK
    case 'offer-withdrawn':
      return event.reason === 'price' ? 'waiting for the market price to reach its ask' : undefined
    case 'claimed':
    case 'resumed':
    case 'progress':
    case 'checkpoint':
    case 'coin':
      return null
    case 'committed':
      return `task ${event.taskId}: waiting for a verifier's verdict`
    case 'revealed':
      return `task ${event.taskId}: waiting for the honest proof's verification`
    case 'rejection-disputed':
      return `task ${event.taskId}: waiting for the dispute's first move`
    case 'dispute':
    case 'settle':
      return sharedWait(event, OPEN_TASK)
    case 'seed-fixed':
    case 'warning':
    case 'leaving':
      return undefined
  }
}

export function verifierWait(event: VerifierEvent): string | null | undefined {
  switch (event.type) {
    case 'ready':
    case 'skipped':
    case 'inconclusive':
    case 'lost-race':
      return COMMITTED_TASK
    case 'claimed':
    case 'segment':
      return null
    case 'verdict':
      return `task ${event.taskId}: waiting for its challenge and reveal windows to close, to settle it`
    case 'dispute':
    case 'settle':
      return sharedWait(event, COMMITTED_TASK)
    default:
      return undefined
  }
}

export function whistleblowerWait(event: WhistleblowerEvent): string | null | undefined {
  switch (event.type) {
    case 'checking':
    case 'segment':
      return null
    case 'committed':
      return challengeWindowWait(event.taskId)
    case 'challenged':
      return `task ${event.taskId}: waiting for the dispute's first move`
    case 'dispute':
    case 'settle':
      return sharedWait(event, ACCEPTED_TASK)
    default:
      return ACCEPTED_TASK
  }
}

/** `wait`: --wait, which plays the dispute to its end after the challenge (without it, the command ends there). */
export function challengeOnceWait(event: ChallengeOnceEvent, wait: boolean): string | null | undefined {
  switch (event.type) {
    case 'segment':
      return null
    case 'committed':
      return challengeWindowWait(event.taskId)
    case 'challenged':
    case 'dispute':
    case 'settle':
      return wait ? `task ${event.taskId}: waiting for the dispute to be decided` : null
  }
}

const challengeWindowWait = (taskId: bigint) => `task ${taskId}: waiting for the challenge window to close, to open the challenge`

/** The waits every role shares: after a move in a dispute it plays, and after a settle it pumped. */
function sharedWait(event: {type: 'dispute'; event: DisputeAgentEvent} | {type: 'settle'; taskId: bigint; outcome: SettleOutcome}, next: string): string | undefined {
  return event.type === 'dispute' ? disputeWait(event.event) : afterSettle(event.taskId, event.outcome, next)
}

function disputeWait(event: DisputeAgentEvent): string {
  return event.type === 'resolved'
    ? `task ${event.taskId}: waiting for the market to apply dispute ${event.disputeId}'s outcome`
    : `task ${event.taskId}: waiting for dispute ${event.disputeId}'s next move`
}

function afterSettle(taskId: bigint, outcome: SettleOutcome, next: string): string | undefined {
  switch (outcome.type) {
    case 'settled':
    case 'reopened':
      return next
    case 'dispute-started':
      return `task ${taskId}: waiting for dispute ${outcome.disputeId}'s first move`
    case 're-verify':
      return `task ${taskId}: waiting for a fresh verification`
    default:
      return undefined
  }
}
