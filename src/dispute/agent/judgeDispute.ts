import {checkpointHash} from '../../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../../ml/checkpoint/encodeCheckpoint.js'
import type {Dispute, TraceHeader, VoteChoice} from '../../protocol/disputeTypes.js'
import {nextCommitment} from '../encoding.js'
import {stateAtStep} from '../stateHashes.js'
import {traceStep} from '../traceStep.js'
import {disputeContext} from './disputeContext.js'
import {headerOf} from './headerOf.js'
import {judgeCrossRuntimeEnd} from './judgeCrossRuntimeEnd.js'
import type {DisputeAgentRun} from './types.js'

/** The committee's question answered honestly (docs/disputes.md, "Committee"). */
export async function judgeDispute(agent: DisputeAgentRun, dispute: Dispute): Promise<VoteChoice> {
  const context = await disputeContext(agent, dispute)
  const state = await stateAtStep({spec: context.spec, store: agent.store, manifest: context.manifest, segment: context.segment, step: context.rangeStart + Number(dispute.step)})
  // An agreed S_i that the committed start does not lead to: both parties stand on a state nobody can derive.
  if (checkpointHash(encodeCheckpoint(state)) !== dispute.stateHash) return 'neither'
  const trace = await traceStep({spec: context.spec, state})
  const pick = (mine: string, prover: string, challenger: string): VoteChoice =>
    prover === mine && challenger !== mine ? 'prover' : challenger === mine && prover !== mine ? 'challenger' : 'neither'
  switch (dispute.question) {
    case 'Graph': {
      const key = (header: TraceHeader) => `${header.opCount}:${header.graphHash}`
      return pick(key(headerOf(trace)), key(dispute.proverHeader), key(dispute.challengerHeader))
    }
    case 'Operator': {
      const element = trace.elements[dispute.element - 1]
      // Both parties agreed on a graph or on outputs this step does not produce: neither traced it honestly.
      if (!element || trace.graphHash !== dispute.proverHeader.graphHash || trace.commitments[dispute.element - 1] !== dispute.loHash) return 'neither'
      // c_j from the agreed c_{j-1} and this member's own o_j of element j.
      return pick(nextCommitment(dispute.loHash, element.outputHash), dispute.proverHi, dispute.challengerHi)
    }
    case 'StateAssembly': {
      if (trace.graphHash !== dispute.proverHeader.graphHash || trace.finalCommitment !== dispute.proverHeader.finalCommitment) return 'neither'
      const exact = pick(trace.nextStateHash, dispute.proverNext, dispute.challengerNext)
      if (exact === 'prover') return exact
      return (await judgeCrossRuntimeEnd(agent, dispute, context, trace.nextState)) ?? exact
    }
    case 'None':
      return 'neither'
  }
}
