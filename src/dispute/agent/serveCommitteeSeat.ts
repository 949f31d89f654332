import {vote} from '../../protocol/disputeActions.js'
import type {Dispute} from '../../protocol/disputeTypes.js'
import {committeeOf} from '../../protocol/getDispute.js'
import {drawCommitteeIfDue} from './drawCommitteeIfDue.js'
import {judgeDispute} from './judgeDispute.js'
import {sendMove} from './sendMove.js'
import type {DisputeAgentRun} from './types.js'

/** A committee seat: recompute the disputed thing from the agreed state and vote for whoever matches it. */
export async function serveCommitteeSeat(agent: DisputeAgentRun, dispute: Dispute, block: bigint): Promise<void> {
  if (dispute.drawAnchor !== 0n) return drawCommitteeIfDue(agent, dispute, block)
  const committee = await committeeOf(agent.connection, {disputeId: dispute.id})
  const seat = committee.members.findIndex((member) => member.toLowerCase() === agent.me)
  if (seat < 0) {
    // Not drawn: the committee is fixed once drawn, so this dispute never concerns us again.
    agent.done.add(dispute.id)
    return
  }
  if (!agent.roles.has(dispute.id)) {
    agent.roles.set(dispute.id, 'committee')
    agent.emit({type: 'joined', disputeId: dispute.id, taskId: dispute.taskId, role: 'committee'})
  }
  if (committee.votes[seat] !== 'none') {
    agent.voted.add(dispute.id)
    return
  }
  if (block > dispute.deadline) return
  const choice = await judgeDispute(agent, dispute)
  await sendMove(agent, dispute, 'vote', BigInt(dispute.element), () => vote(agent.connection, {disputeId: dispute.id, choice}), choice)
  agent.voted.add(dispute.id)
}
