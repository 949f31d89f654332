import {postVerdict} from '../../protocol/marketActions.js'
import type {Task} from '../../protocol/types.js'
import type {Decision, VerifiedTask, VerifierRun} from './types.js'

/** Stores the decision's report and posts the verdict that commits to it; `started` is when deciding began. */
export async function postDecision(run: VerifierRun, task: Task, decision: Decision, started: number): Promise<VerifiedTask> {
  const reportHash = await run.connection.store.putJson(decision.report)
  const verdict = await postVerdict(run.connection, {
    taskId: task.id,
    accepted: decision.accepted,
    reportHash,
    distance: decision.distance,
    segment: decision.segment,
    replayHash: decision.replayHash,
  })
  run.emit({
    type: 'verdict',
    taskId: task.id,
    accepted: decision.accepted,
    reason: decision.reason,
    reportHash,
    distance: decision.distance,
    segment: decision.segment,
    replayHash: decision.replayHash,
    replayed: decision.replayed,
    verifySeconds: (performance.now() - started) / 1000,
    gasUsed: verdict.gasUsed,
  })
  return {taskId: task.id, accepted: decision.accepted, reportHash, segment: decision.segment, replayHash: decision.replayHash, replayed: decision.replayed}
}
