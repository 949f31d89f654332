import type {Hex} from 'viem'

import {randomHex} from '../../random/randomHex.js'
import {arbitrate, escalate, postCommitment, postState, postTraceHeader, timeoutDispute} from '../../protocol/disputeActions.js'
import {type Dispute, type DisputeRole, hasPosted, type TraceHeader} from '../../protocol/disputeTypes.js'
import {isRevert} from '../../protocol/errors.js'
import {arbitrationPayload, isDecidableOnchain} from '../arbitration.js'
import {DisputeTraceError} from '../errors.js'
import type {StepTrace} from '../types.js'
import {drawCommitteeIfDue} from './drawCommitteeIfDue.js'
import {headerOf} from './headerOf.js'
import {sendMove} from './sendMove.js'
import {stateHashAt} from './stateHashAt.js'
import {traceAt} from './traceAt.js'
import type {DisputeAgentRun} from './types.js'

/** One party's moves in one dispute, for the round the chain is in now. */
export async function playDispute(agent: DisputeAgentRun, dispute: Dispute, role: DisputeRole, block: bigint, maxOnchainElements: number): Promise<void> {
  const {connection, stance} = agent
  const id = dispute.id
  const stopped = stance === 'staller' && (agent.moves.get(id) ?? 0) >= agent.stallAfter
  if (stopped) {
    if (!agent.stalled.has(id)) {
      agent.stalled.add(id)
      agent.emit({type: 'stalled', disputeId: id, taskId: dispute.taskId, rounds: agent.moves.get(id) ?? 0})
    }
    return
  }
  /** A griefer's made-up hash: random, never zero. */
  const madeUp = (): Hex => randomHex(agent.random)
  if (block > dispute.deadline) {
    // The round is over: whoever posted wins it, an arbitration goes to the committee, a committee is tallied.
    await sendMove(agent, dispute, 'timeout', dispute.phase === 'Steps' || dispute.phase === 'Operators' ? midOf(dispute) : dispute.element, () => timeoutDispute(connection, {disputeId: id}))
    return
  }
  switch (dispute.phase) {
    case 'Steps': {
      if (hasPosted(dispute, role)) return
      const mid = midOf(dispute)
      const hash = stance === 'griefer' ? madeUp() : await stateHashAt(agent, dispute, mid)
      await sendMove(agent, dispute, 'state', mid, () => postState(connection, {disputeId: id, stateHash: hash}), hash)
      return
    }
    case 'TraceHeader': {
      if (hasPosted(dispute, role)) return
      const header: TraceHeader =
        stance === 'griefer'
          ? {opCount: 1 + Math.floor(agent.random() * 1000), graphHash: madeUp(), finalCommitment: madeUp()}
          : headerOf(await traceAt(agent, dispute))
      await sendMove(agent, dispute, 'header', dispute.step, () => postTraceHeader(connection, {disputeId: id, ...header}), `${header.opCount} ops, graph ${header.graphHash}`)
      return
    }
    case 'Operators': {
      if (hasPosted(dispute, role)) return
      const mid = midOf(dispute)
      const commitment = stance === 'griefer' ? madeUp() : commitmentAt(await traceAt(agent, dispute), mid)
      await sendMove(agent, dispute, 'commitment', mid, () => postCommitment(connection, {disputeId: id, commitment}), commitment)
      return
    }
    case 'Arbitration': {
      if (stance === 'griefer') return // it has no trace to build the payload from
      const trace = await traceAt(agent, dispute)
      const element = trace.elements[dispute.element - 1]
      if (element && isDecidableOnchain(element.descriptor, maxOnchainElements)) {
        try {
          await sendMove(agent, dispute, 'arbitrate', BigInt(dispute.element), () => arbitrate(connection, {disputeId: id, ...arbitrationPayload(trace, dispute.element)}), element.descriptor.kernel)
          return
        } catch (error) {
          if (!isRevert(error, 'NotDecidableOnchain')) throw error
        }
      }
      await sendMove(agent, dispute, 'escalate', BigInt(dispute.element), () => escalate(connection, {disputeId: id}), element?.descriptor.kernel)
      return
    }
    case 'Committee':
      await drawCommitteeIfDue(agent, dispute, block)
      return
    case 'None':
    case 'Resolved':
      return
  }
}

function midOf(dispute: Pick<Dispute, 'lo' | 'hi'>): bigint {
  return (dispute.lo + dispute.hi) / 2n
}

/** c_mid of the operator bisection (mid is at most opCount: the round's hi is at most opCount + 1). */
function commitmentAt(trace: StepTrace, mid: bigint): Hex {
  const commitment = trace.commitments[Number(mid)]
  if (!commitment) throw new DisputeTraceError(`commitment c_${mid}: expected an element number in [0, ${trace.opCount}]`)
  return commitment
}
