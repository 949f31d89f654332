import {BaseError} from '../../errors/base.js'
import type {Dispute, DisputeRole} from '../../protocol/disputeTypes.js'
import {disputeCount, getDispute} from '../../protocol/getDispute.js'
import {getProtocolParams} from '../../protocol/getProtocolParams.js'
import {playDispute} from './playDispute.js'
import {serveCommitteeSeat} from './serveCommitteeSeat.js'
import type {DisputeAgentRun} from './types.js'

/**
 * One poll: reads every dispute not known to be over and makes the moves due now: its own as a party, a
 * committee seat's when it serves, and the record of a resolved one it took part in.
 */
export async function pollDisputes(agent: DisputeAgentRun): Promise<void> {
  const {connection} = agent
  const count = await disputeCount(connection)
  const block = await connection.publicClient.getBlockNumber()
  let maxOnchainElements: number | undefined
  for (let id = 1n; id <= count; id++) {
    if (agent.done.has(id)) continue
    const dispute = await getDispute(connection, {disputeId: id})
    const role = roleIn(agent, dispute)
    if (dispute.phase === 'Resolved') {
      finish(agent, dispute, agent.roles.get(id))
      continue
    }
    try {
      if (role) {
        if (!agent.roles.has(id)) {
          agent.roles.set(id, role)
          agent.emit({type: 'joined', disputeId: id, taskId: dispute.taskId, role})
        }
        maxOnchainElements ??= (await getProtocolParams(connection)).maxOnchainElements
        await playDispute(agent, dispute, role, block, maxOnchainElements)
      } else if (!agent.serveCommittee) {
        agent.done.add(id) // the parties are fixed when a dispute opens: it never concerns this agent
      } else if (dispute.phase === 'Committee' && !agent.voted.has(id)) {
        await serveCommitteeSeat(agent, dispute, block)
      }
    } catch (error) {
      // One dispute it cannot play (yet) must not stop the others, nor the actor running it.
      if (!(error instanceof BaseError)) throw error
      agent.emit({type: 'error', disputeId: id, taskId: dispute.taskId, message: error.shortMessage})
    }
  }
}

function roleIn(agent: DisputeAgentRun, dispute: Dispute): DisputeRole | undefined {
  if (dispute.prover.toLowerCase() === agent.me) return 'prover'
  if (dispute.challenger.toLowerCase() === agent.me) return 'challenger'
  return undefined
}

function finish(agent: DisputeAgentRun, dispute: Dispute, role: DisputeRole | 'committee' | undefined): void {
  agent.done.add(dispute.id)
  agent.contexts.delete(dispute.id)
  if (role === undefined) return
  agent.resolved.set(dispute.id, dispute.outcome)
  const won = role === 'committee' ? undefined : role === 'prover' ? dispute.outcome === 'ProverWon' : dispute.outcome === 'ChallengerWon'
  agent.emit({type: 'resolved', disputeId: dispute.id, taskId: dispute.taskId, role, outcome: dispute.outcome, won})
}
