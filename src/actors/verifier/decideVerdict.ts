import {type Hex, zeroHash} from 'viem'

import {uncheckedReport} from '../../adversary/verifierStrategies.js'
import {finalCheckpointOf, verifyProof} from '../../pol/index.js'
import {verdictDistance} from '../../pol/verdictDistance.js'
import {getTask} from '../../protocol/getTask.js'
import type {Task} from '../../protocol/types.js'
import {onchainScheduleProblem} from './onchainScheduleProblem.js'
import {readManifest} from './readManifest.js'
import {rejectionClaim} from './rejectionClaim.js'
import type {Decision, VerificationPlan, VerifierRun} from './types.js'

/**
 * The verdict on a claimed proof: by replaying the sampled segments (a rejection names the first failing
 * segment and the hash its replay gave), or, for a lazy or colluding verifier, without replaying. Undefined
 * when aborted or inconclusive (no verdict on the solver).
 */
export async function decideVerdict(run: VerifierRun, task: Task, plan: VerificationPlan, randomness: Hex): Promise<Decision | undefined> {
  return plan.unchecked ? decideUnchecked(run, task) : decideByReplay(run, task, plan, randomness)
}

/** lazy, or colluding with this task's solver: accept without replaying, and say so in the report. */
function decideUnchecked(run: VerifierRun, task: Task): Decision {
  const report = uncheckedReport(run.strategy === 'lazy' ? 'lazy' : 'colluding', task.manifestHash, task.proofRoot)
  return {report, accepted: true, reason: report.reason, distance: 0n, segment: 0, replayHash: zeroHash, replayed: false}
}

async function decideByReplay(run: VerifierRun, task: Task, {spec, thresholds}: VerificationPlan, randomness: Hex): Promise<Decision | undefined> {
  const {connection, emit} = run
  const report = await verifyProof({
    startCheckpoint: await parentFinalCheckpoint(run, task),
    mode: run.mode,
    thresholds,
    spec,
    store: connection.store,
    manifestHash: task.manifestHash,
    proofRoot: task.proofRoot,
    randomness,
    segments: spec.verification.segments,
    backend: run.options.backend,
    onSegment: (segment) =>
      emit({type: 'segment', taskId: task.id, segment: segment.segment, startStep: segment.startStep, endStep: segment.endStep, match: segment.match, hashMatch: segment.hashMatch, seconds: segment.seconds}),
  })
  if (run.signal?.aborted) return undefined
  if (report.inconclusive) {
    // Not a verdict on the solver: posting a rejection would slash an honest party.
    emit({type: 'inconclusive', taskId: task.id, reason: report.reason ?? 'runtime unavailable'})
    return undefined
  }
  const scheduleProblem = onchainScheduleProblem(task, spec, await readManifest(connection, task.manifestHash))
  const distance = verdictDistance(report)
  if (report.accepted && !scheduleProblem) return {report, accepted: true, distance, segment: 0, replayHash: zeroHash, replayed: true}
  const reason = report.accepted ? scheduleProblem : report.reason
  const claim = await rejectionClaim(run, task, spec, randomness, report, thresholds)
  return {report: {...report, accepted: false, reason, claim}, accepted: false, reason, distance, replayed: true, ...claim}
}

/**
 * A split task's start: the final checkpoint of its parent's accepted proof (the contract proves the same at
 * commit; this is a second line with a clear message). Undefined for a task without a parent, or when the
 * parent's manifest cannot be read (then only the start's step is checked).
 */
async function parentFinalCheckpoint(run: VerifierRun, task: Task): Promise<Hex | undefined> {
  if (task.parentId === 0n) return undefined
  const parent = await getTask(run.connection, {taskId: task.parentId})
  const manifest = await readManifest(run.connection, parent.manifestHash)
  return manifest && manifest.checkpoints.length > 0 ? finalCheckpointOf(manifest).hash : undefined
}
