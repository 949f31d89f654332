import {formatEther} from 'viem'

import type {DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import type {SettleOutcome} from '../protocol/marketActions.js'
import {type Task, verdictOf} from '../protocol/types.js'

/** One line for what a settle call did (the settle pump, docs/disputes.md "Task lifecycle" 8). */
export function describeSettle(outcome: SettleOutcome): string {
  const resolved = outcome.resolved ? `dispute ${outcome.resolved.disputeId} ended ${outcome.resolved.outcome}; ` : ''
  return resolved + describeStep(outcome)
}

/** One line for what the dispute agent did (src/dispute/createDisputeAgent.ts). */
export function describeDisputeEvent(event: DisputeAgentEvent): string {
  switch (event.type) {
    case 'joined':
      return `task ${event.taskId}: joined as ${event.role}`
    case 'move':
      return `${event.phase}: ${event.move}${event.value === undefined ? '' : ` ${event.value}`} (round ${event.index})`
    case 'stalled':
      return `stopped answering after ${event.rounds} rounds`
    case 'resolved':
      return `task ${event.taskId}: resolved ${event.outcome} (as ${event.role}${event.won === undefined ? '' : event.won ? ', won' : ', lost'})`
    case 'lost-race':
      return `${event.move}: ${event.reason}`
    case 'error':
      return `cannot move yet: ${event.message}`
  }
}

function describeStep(outcome: SettleOutcome): string {
  switch (outcome.type) {
    case 'settled':
      return 'settled, accepted: the fees are paid'
    case 'dispute-started':
      return `dispute ${outcome.disputeId} started`
    case 'reopened':
      return 'rejected: the task reopens for another solver'
    case 're-verify':
      return 'back to Committed for a fresh verification'
    case 'dispute-resolved':
      return 'the task stays verified for the next step'
    case 'moved':
      return 'moved on'
  }
}

/** A task as plain JSON: amounts in wei strings, plus the derived verdict. */
export function taskToJson(task: Task): Record<string, unknown> {
  return {
    id: task.id.toString(),
    status: task.status,
    verdict: verdictOf(task),
    submitter: task.submitter,
    solver: task.solver,
    verifier: task.verifier,
    specHash: task.specHash,
    escrow: task.escrow.toString(),
    parentId: task.parentId.toString(),
    workUnits: task.workUnits.toString(),
    maxSteps: task.maxSteps.toString(),
    maxPrice: task.maxPrice.toString(),
    price: task.price.toString(),
    solverReward: task.solverReward.toString(),
    verifierReward: task.verifierReward.toString(),
    deadline: Number(task.deadline),
    submittedAt: Number(task.submittedAt),
    commitBlock: Number(task.commitBlock),
    checkpointCount: task.checkpointCount,
    proofRoot: task.proofRoot,
    manifestHash: task.manifestHash,
    randomness: task.randomness,
    reportHash: task.reportHash,
    attempts: task.attempts,
    distance: task.distance.toString(),
    claimBlock: Number(task.claimBlock),
    secretHash: task.secretHash,
    seed: task.seed,
    sealedHonest: task.sealedHonest,
    checkpointInterval: Number(task.checkpointInterval),
    totalSteps: Number(task.totalSteps),
    forcedErrorBps: task.forcedErrorBps,
    forcedRevealed: task.forcedRevealed,
    verdictBlock: Number(task.verdictBlock),
    challengeEndBlock: Number(task.challengeEndBlock),
    openEndBlock: Number(task.openEndBlock),
    revealEndBlock: Number(task.revealEndBlock),
    rejectSegment: task.rejectSegment,
    rejectReplayHash: task.rejectReplayHash,
    disputeFiled: task.disputeFiled,
    rejectStartHash: task.rejectStartHash,
    rejectEndHash: task.rejectEndHash,
    nextChallenge: task.nextChallenge,
    activeDispute: task.activeDispute.toString(),
    solverLocked: task.solverLocked.toString(),
    verifierLocked: task.verifierLocked.toString(),
  }
}

export function taskRow(task: Task): string[] {
  return [task.id.toString(), task.status, verdictOf(task), shortAddress(task.submitter), shortAddress(task.solver), shortAddress(task.verifier), formatEther(task.escrow)]
}

function shortAddress(address: string): string {
  return /^0x0{40}$/.test(address) ? '-' : `${address.slice(0, 6)}…${address.slice(-4)}`
}
