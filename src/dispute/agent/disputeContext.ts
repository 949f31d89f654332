import {taskStepRange} from '../../ml/train/taskStepRange.js'
import type {ProofManifest} from '../../ml/checkpoint/manifest.js'
import type {Dispute} from '../../protocol/disputeTypes.js'
import {getTask} from '../../protocol/getTask.js'
import {loadTaskSpec} from '../../protocol/loadTaskSpec.js'
import {DisputeTraceError} from '../errors.js'
import type {DisputeAgentRun, DisputeContext} from './types.js'

/** What the agent knows about a dispute's task (its spec, proof and segment), loaded once per dispute. */
export function disputeContext(agent: DisputeAgentRun, dispute: Dispute): Promise<DisputeContext> {
  let context = agent.contexts.get(dispute.id)
  if (!context) {
    context = loadContext(agent, dispute)
    agent.contexts.set(dispute.id, context)
    // A failed load (a blob not there yet) is retried on the next poll.
    context.catch(() => agent.contexts.delete(dispute.id))
  }
  return context
}

async function loadContext({connection, store}: DisputeAgentRun, dispute: Dispute): Promise<DisputeContext> {
  const task = await getTask(connection, {taskId: dispute.taskId})
  const spec = await loadTaskSpec({store}, task)
  const manifest = await store.getJson<ProofManifest>(task.manifestHash)
  const interval = task.checkpointInterval > 0n ? task.checkpointInterval : BigInt(manifest.checkpointInterval)
  const segment = Number(dispute.startStep / interval)
  const start = manifest.checkpoints[segment]
  const rangeStart = taskStepRange(spec).start
  if (start?.step !== rangeStart + Number(dispute.startStep)) {
    throw new DisputeTraceError(
      `dispute ${dispute.id}: its start step ${dispute.startStep} (absolute ${rangeStart + Number(dispute.startStep)}) is not checkpoint ${segment} of task ${dispute.taskId}'s proof`,
    )
  }
  return {spec, manifest, segment, rangeStart, traces: new Map()}
}
