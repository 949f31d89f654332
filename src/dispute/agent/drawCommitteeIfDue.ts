import {drawCommittee} from '../../protocol/disputeActions.js'
import type {Dispute} from '../../protocol/disputeTypes.js'
import {sendMove} from './sendMove.js'
import type {DisputeAgentRun} from './types.js'

/**
 * A committee is drawn from the hash of the block after the one that opened it, by whoever calls first: each
 * party (and each committee server) calls once that block exists, so neither can keep the committee undrawn.
 */
export async function drawCommitteeIfDue(agent: DisputeAgentRun, dispute: Dispute, block: bigint): Promise<void> {
  if (dispute.drawAnchor === 0n || block <= dispute.drawAnchor + 1n) return
  await sendMove(agent, dispute, 'draw', BigInt(dispute.element), () => drawCommittee(agent.connection, {disputeId: dispute.id}))
}
