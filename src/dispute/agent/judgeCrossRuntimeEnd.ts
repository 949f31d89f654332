import {runtimeIdString} from '../../ml/backend/runtimeId.js'
import {selectBackend} from '../../ml/backend/selectBackend.js'
import {decodeCheckpoint} from '../../ml/checkpoint/decodeCheckpoint.js'
import type {Checkpoint} from '../../ml/checkpoint/types.js'
import {parameterDistances} from '../../pol/distances/parameterDistances.js'
import {checkThresholdsCover} from '../../pol/distances/thresholds.js'
import {checkpointTensorNames, judgeTolerance} from '../../pol/replaySegment.js'
import type {Dispute, VoteChoice} from '../../protocol/disputeTypes.js'
import {pinnedThresholds} from '../../protocol/pinnedThresholds.js'
import type {DisputeAgentRun, DisputeContext} from './types.js'

/**
 * The committee's rule for a proof trained on another runtime than the game re-executes on (wasm): such a proof's
 * checkpoints are not wasm's states, so two honest parties agree on every wasm state of the disputed segment and
 * the bisection isolates its last step, where the prover's S_{i+1} is the committed end. That end is judged as a
 * tolerance-mode verifier judges the segment (judgeTolerance, the replays on other runtimes included): the member's wasm replay of the segment from
 * the committed start (`replayedEnd`, the state its trace of the last step ends in) against the committed end, by the thresholds the job pinned for the pair of runtimes.
 * Within them the prover is right. Outside them the challenger is, whatever its own S_{i+1}: it disputed an end that
 * the job's own rule rejects (a whistleblower that replayed on the proof's runtime claims that runtime's end, not wasm's).
 *
 * Undefined where the rule does not apply and the exact rule decides: a step inside the segment (both parties'
 * states there are wasm's, exactly), a prover S_{i+1} that is not the committed end, a proof trained on wasm, or a
 * job that pins no thresholds for the pair (docs/disputes.md, "Cross-runtime disputes").
 */
export async function judgeCrossRuntimeEnd(agent: DisputeAgentRun, dispute: Dispute, context: DisputeContext, replayedEnd: Checkpoint): Promise<VoteChoice | undefined> {
  const {spec, manifest, segment, rangeStart} = context
  const start = manifest.checkpoints[segment]
  const end = manifest.checkpoints[segment + 1]
  if (!start || !end || end.step !== rangeStart + Number(dispute.step) + 1 || dispute.proverNext !== end.hash) return undefined
  const wasm = await selectBackend('wasm')
  if (runtimeIdString(manifest.runtime) === runtimeIdString(wasm)) return undefined
  const {pinned} = await pinnedThresholds({store: agent.store}, {spec, runtimes: [manifest.runtime, wasm]})
  if (!pinned) return undefined
  const limits = checkThresholdsCover(pinned.thresholds, checkpointTensorNames(spec))
  const [startState, committedBytes] = await Promise.all([agent.store.get(start.hash), agent.store.get(end.hash)])
  const committed = decodeCheckpoint(committedBytes)
  const startCheckpoint = decodeCheckpoint(startState)
  const distances = parameterDistances(replayedEnd, committed, startCheckpoint)
  const {violations} = await judgeTolerance({spec, start: startCheckpoint, replayed: replayedEnd, runtime: wasm, committed, distances, limits})
  return violations.length === 0 ? 'prover' : 'challenger'
}
