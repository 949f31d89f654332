import type {Hex} from 'viem'

import {selectSegments} from '../../../pol/selectSegments.js'
import {commitChallenge} from '../../../protocol/commitChallenge.js'
import type {SignedConnection} from '../../../protocol/connect.js'
import {currentIndex, getDispute} from '../../../protocol/getDispute.js'
import {openChallenge} from '../../../protocol/openChallenge.js'
import {postState} from '../../../protocol/postState.js'
import {timeoutDispute} from '../../../protocol/timeoutDispute.js'
import {sleep} from '../../../util/sleep.js'
import type {CrowdContext, CrowdRoleFactory} from '../crowdContext.js'
import {firstWrongSegment, replaySteps, startState, type SyntheticManifest} from '../syntheticWork.js'
import type {BoardTask} from '../taskBoard.js'

type Challenge = {task: BoardTask; segment: number; claimedEndHash: Hex; stage: 'committed' | 'opened' | 'posted'; disputeId?: bigint; deadline?: bigint}

/**
 * Re-checks accepted verdicts in their challenge window: each one with the chance that keeps about `maxActive`
 * whistleblowers on it, replaying as many random segments as a verifier does. A wrong segment is challenged
 * (commit, then open in the open window); when settle starts the game, it posts its state for the bisection's
 * step and, when the other side never answers, ends the game by timeout.
 */
export const crowdWhistleblower: CrowdRoleFactory = (connection, member, context) => {
  const me = member.address.toLowerCase()
  const {board, crowd} = context
  const seen = new Set<bigint>()
  const challenges: Challenge[] = []
  const share = Math.min(1, crowd.maxActive / Math.max(1, crowd.whistleblowers))
  return async () => {
    for (const challenge of challenges) await advance(connection, context, challenge)
    for (let index = challenges.length - 1; index >= 0; index--) if (challenges[index]!.task.status !== 'Verified') challenges.splice(index, 1)
    const candidates = [...board.tasks.values()].filter(
      (task) => task.status === 'Verified' && task.accepted === true && !seen.has(task.id) && task.solver?.toLowerCase() !== me && task.verifier?.toLowerCase() !== me && context.isCrowdTask(task),
    )
    // Verdicts come in bunches: the one whose window closes first goes first, and ties in a random order of its own,
    // so that whistleblowers who re-check the same bunch do not all reach its last verdict last.
    const order = new Map(candidates.map((task) => [task.id, context.random()]))
    candidates.sort((a, b) => Number(a.challengeEndBlock! - b.challengeEndBlock!) || order.get(a.id)! - order.get(b.id)!)
    for (const task of candidates) {
      // A challenge of its own whose open window has come goes first: one never opened forfeits the deposit.
      if (challenges.some((challenge) => challenge.stage === 'committed' && board.head > challenge.task.challengeEndBlock!)) return
      seen.add(task.id)
      if (board.head >= task.challengeEndBlock! || context.random() >= share) continue
      const challenge = await recheck(connection, context, task)
      if (challenge) {
        challenges.push(challenge)
        return
      }
    }
  }
}

async function recheck(connection: SignedConnection, context: CrowdContext, task: BoardTask): Promise<Challenge | undefined> {
  const {crowd, stats} = context
  stats.rechecks++
  const manifest = await connection.store.getJson<SyntheticManifest>(task.manifestHash!)
  const randomness = `0x${Array.from({length: 64}, () => Math.floor(context.random() * 16).toString(16)).join('')}` as Hex
  const segments = selectSegments({randomness, segmentCount: manifest.checkpoints.length - 1, count: crowd.samples})
  await sleep(segments.length * crowd.checkpointInterval * crowd.stepMs, context.signal)
  const wrong = firstWrongSegment(manifest.checkpoints, segments)
  if (!wrong || context.board.head >= task.challengeEndBlock!) return undefined
  const claim = {segment: wrong.segment, claimedEndHash: wrong.replayHash}
  await commitChallenge(connection, {task: {id: task.id, verdictBlock: task.verdictBlock!}, claim})
  stats.challenges++
  return {task, ...claim, stage: 'committed'}
}

/** One move of a challenge: open it, post the bisection's state, or end the game the other side left. */
async function advance(connection: SignedConnection, context: CrowdContext, challenge: Challenge): Promise<void> {
  const {board, stats} = context
  const {task} = challenge
  if (challenge.stage === 'committed') {
    // The open window is blocks challengeEnd + 1 .. openEnd, and the opening is simulated against the head.
    if (board.head <= task.challengeEndBlock! || board.head > task.openEndBlock!) return
    await openChallenge(connection, {task: {id: task.id, manifestHash: task.manifestHash!, proofRoot: task.proofRoot!, verdictBlock: task.verdictBlock!}, claim: challenge})
    challenge.stage = 'opened'
    return
  }
  if (challenge.stage === 'opened') {
    const disputeId = task.disputes.get(connection.account.address.toLowerCase())
    if (disputeId === undefined) return
    const step = Number(await currentIndex(connection, {disputeId}))
    await postState(connection, {disputeId, stateHash: replaySteps(startState(task.specHash), 0, step)})
    stats.statesPosted++
    challenge.disputeId = disputeId
    challenge.deadline = (await getDispute(connection, {disputeId})).deadline
    challenge.stage = 'posted'
    return
  }
  if (board.head <= challenge.deadline!) return
  const dispute = await getDispute(connection, {disputeId: challenge.disputeId!})
  if (dispute.outcome !== 'None') return
  if (board.head <= dispute.deadline) {
    challenge.deadline = dispute.deadline
    return
  }
  await timeoutDispute(connection, {disputeId: challenge.disputeId!})
  stats.timeouts++
}
