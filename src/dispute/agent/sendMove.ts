import type {Dispute} from '../../protocol/disputeTypes.js'
import {isRevert} from '../../protocol/errors.js'
import type {TransactionResult} from '../../protocol/sendContractTransaction.js'
import type {DisputeAgentRun, DisputeMove} from './types.js'

/** Reverts that mean another actor moved first or the round moved on: the next poll sees the new state. */
const raceErrors = ['WrongPhase', 'AlreadyPosted', 'DeadlinePassed', 'DeadlineNotReached', 'AlreadyVoted', 'DisputeNotFound', 'CommitteeAlreadyDrawn', 'CommitteeNotDrawn']

/** Sends one move; a lost race (the round moved on, another party timed it out) is reported and skipped. */
export async function sendMove(
  agent: DisputeAgentRun,
  dispute: Dispute,
  kind: DisputeMove,
  index: bigint | number,
  send: () => Promise<TransactionResult>,
  value?: string,
): Promise<void> {
  try {
    const transaction = await send()
    agent.moves.set(dispute.id, (agent.moves.get(dispute.id) ?? 0) + 1)
    agent.emit({type: 'move', disputeId: dispute.id, taskId: dispute.taskId, move: kind, phase: dispute.phase, index: BigInt(index), value, gasUsed: transaction.gasUsed})
  } catch (error) {
    if (!isRevert(error, ...raceErrors)) throw error
    agent.emit({type: 'lost-race', disputeId: dispute.id, taskId: dispute.taskId, move: kind, reason: error.errorName})
  }
}
