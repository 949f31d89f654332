import type {Dispute} from '../../protocol/disputeTypes.js'
import {stateAtStep} from '../stateHashes.js'
import {traceStep} from '../traceStep.js'
import type {StepTrace} from '../types.js'
import {disputeContext} from './disputeContext.js'
import type {DisputeAgentRun} from './types.js'

/** This party's trace of the disputed step, from the agreed state S_i (computed once per dispute and step). */
export async function traceAt(agent: DisputeAgentRun, dispute: Dispute): Promise<StepTrace> {
  const context = await disputeContext(agent, dispute)
  const step = context.rangeStart + Number(dispute.step)
  const corruption = agent.corruption?.step === step ? agent.corruption : undefined
  const key = `${step}:${corruption ? 'corrupt' : 'honest'}`
  let trace = context.traces.get(key)
  if (!trace) {
    const state = await stateAtStep({spec: context.spec, store: agent.store, manifest: context.manifest, segment: context.segment, step, corruption: agent.corruption})
    trace = await traceStep({spec: context.spec, state, corruption})
    context.traces.set(key, trace)
  }
  return trace
}
