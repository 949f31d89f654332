import {zeroHash} from 'viem'

import {selectSegments} from '../../../pol/selectSegments.js'
import {claimVerification} from '../../../protocol/claimVerification.js'
import {postVerdict} from '../../../protocol/postVerdict.js'
import {sleep} from '../../../util/sleep.js'
import {type CrowdRoleFactory, pickRandom} from '../crowdContext.js'
import {firstWrongSegment, type SyntheticManifest} from '../syntheticWork.js'

/**
 * Claims a random committed task, replays the segments the market's randomness picks (for their declared time)
 * and posts the verdict: a rejection names the first segment that failed. A lazy verifier accepts at once.
 */
export const crowdVerifier: CrowdRoleFactory = (connection, member, context) => {
  const me = member.address.toLowerCase()
  const {board, crowd, stats} = context
  return async () => {
    const committed = [...board.tasks.values()].filter(
      (task) => task.status === 'Committed' && task.commitBlock !== undefined && task.commitBlock + 1n < board.head && task.solver?.toLowerCase() !== me && !task.barred.has(me) && !context.claiming.has(task.id) && context.isCrowdTask(task),
    )
    const task = pickRandom(committed, context.random)
    if (!task) return
    let randomness
    context.claiming.add(task.id)
    try {
      randomness = (await claimVerification(connection, {taskId: task.id})).randomness
    } catch {
      return // another verifier took it first
    } finally {
      context.claiming.delete(task.id)
    }
    stats.verifications++
    const manifest = await connection.store.getJson<SyntheticManifest>(task.manifestHash!)
    const lazy = member.strategy === 'lazy'
    const segments = lazy ? [] : selectSegments({randomness, segmentCount: manifest.checkpoints.length - 1, count: crowd.samples})
    await sleep(segments.length * crowd.checkpointInterval * crowd.stepMs, context.signal)
    const wrong = firstWrongSegment(manifest.checkpoints, segments)
    const reportHash = await connection.store.putJson({kind: 'synthetic-verification', taskId: task.id.toString(), verifier: member.name, segments, wrong: wrong?.segment ?? null})
    await postVerdict(connection, {taskId: task.id, accepted: !wrong, reportHash, distance: 0n, segment: wrong?.segment ?? 0, replayHash: wrong?.replayHash ?? zeroHash})
    if (wrong) stats.rejections++
    if (lazy) stats.lazyAccepts++
  }
}
