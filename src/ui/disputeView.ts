import type {Committee, Dispute} from '../protocol/disputeTypes.js'

/** A dispute as plain JSON: bigints as decimal strings (uint64 steps and blocks as numbers), enums by name. */
export function disputeToJson(dispute: Dispute, committee?: Committee): Record<string, unknown> {
  return {
    id: dispute.id.toString(),
    taskId: dispute.taskId.toString(),
    phase: dispute.phase,
    outcome: dispute.outcome,
    question: dispute.question,
    rounds: dispute.rounds,
    prover: dispute.prover,
    challenger: dispute.challenger,
    openerIsProver: dispute.openerIsProver,
    excluded: dispute.excluded,
    startStep: Number(dispute.startStep),
    endStep: Number(dispute.endStep),
    lo: Number(dispute.lo),
    hi: Number(dispute.hi),
    loHash: dispute.loHash,
    proverHi: dispute.proverHi,
    challengerHi: dispute.challengerHi,
    step: Number(dispute.step),
    stateHash: dispute.stateHash,
    proverNext: dispute.proverNext,
    challengerNext: dispute.challengerNext,
    element: dispute.element,
    proverHeader: dispute.proverHeader,
    challengerHeader: dispute.challengerHeader,
    proverPosted: dispute.proverPosted,
    challengerPosted: dispute.challengerPosted,
    deadline: Number(dispute.deadline),
    ...(committee ? {committee: committee.members.map((member, index) => ({member, vote: committee.votes[index]}))} : {}),
  }
}

export const disputeHeader = ['ID', 'TASK', 'PHASE', 'ROUNDS', 'RANGE', 'OUTCOME', 'PROVER', 'CHALLENGER', 'DEADLINE']

/** One row of `disputes list`: RANGE is lo-hi (steps, or elements in Operators), the disputed element once isolated. */
export function disputeRow(dispute: Dispute): string[] {
  return [
    dispute.id.toString(),
    dispute.taskId.toString(),
    dispute.phase === 'Committee' ? `Committee (${dispute.question})` : dispute.phase,
    String(dispute.rounds),
    rangeOf(dispute),
    dispute.outcome === 'None' ? '-' : dispute.outcome,
    shortAddress(dispute.prover),
    shortAddress(dispute.challenger),
    dispute.phase === 'Resolved' ? '-' : `block ${dispute.deadline}`,
  ]
}

function rangeOf(dispute: Dispute): string {
  switch (dispute.phase) {
    case 'Steps':
      return `steps ${dispute.lo}-${dispute.hi}`
    case 'TraceHeader':
      return `step ${dispute.step}`
    case 'Operators':
      return `step ${dispute.step}, ops ${dispute.lo}-${dispute.hi}`
    case 'Arbitration':
    case 'Committee':
      return dispute.question === 'Graph' ? `step ${dispute.step}, graph` : `step ${dispute.step}, op ${dispute.element}`
    default:
      return `steps ${dispute.startStep}-${dispute.endStep}`
  }
}

function shortAddress(address: string): string {
  return /^0x0{40}$/.test(address) ? '-' : `${address.slice(0, 6)}…${address.slice(-4)}`
}
