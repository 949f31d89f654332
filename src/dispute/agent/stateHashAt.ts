import type {Hex} from 'viem'

import type {Dispute} from '../../protocol/disputeTypes.js'
import {DisputeTraceError} from '../errors.js'
import {segmentStateHashes} from '../stateHashes.js'
import {disputeContext} from './disputeContext.js'
import type {DisputeAgentRun} from './types.js'

/** This party's S_t for a step of the segment (computed once per dispute, with the corruption if it plays one). */
export async function stateHashAt(agent: DisputeAgentRun, dispute: Dispute, step: bigint): Promise<Hex> {
  const context = await disputeContext(agent, dispute)
  context.stateHashes ??= (
    await segmentStateHashes({spec: context.spec, store: agent.store, manifest: context.manifest, segment: context.segment, corruption: agent.corruption})
  ).hashes
  const hash = context.stateHashes[Number(step - dispute.startStep)]
  if (!hash) throw new DisputeTraceError(`dispute ${dispute.id}: step ${step} is outside its segment [${dispute.startStep}, ${dispute.endStep}]`)
  return hash
}
