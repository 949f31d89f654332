import type {Hex} from 'viem'

import {createDisputeAgent, type DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import {BaseError, InvalidInputError} from '../errors/base.js'
import type {SegmentReplay} from '../pol/index.js'
import type {SignedConnection} from '../protocol/connect.js'
import {type ChallengeClaim, readCommittedClaim} from '../protocol/challengeCommitment.js'
import type {DisputeOutcome} from '../protocol/disputeTypes.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {isRevert} from '../protocol/errors.js'
import {getChallenges} from '../protocol/getChallenges.js'
import {getDispute} from '../protocol/getDispute.js'
import {getTask} from '../protocol/getTask.js'
import type {Task, TaskStatus} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {commitAndOpen, openWhenDue} from './commitAndOpen.js'
import {seededRandom} from '../random/seededRandom.js'
import {type RecheckOptions, recheckTask} from './recheckTask.js'
import {pumpSettle, type SettleReport} from './runRoleLoop.js'
import {waitForNewHead} from './waitForNewHead.js'

export type ChallengeOnceEvent =
  | {type: 'segment'; taskId: bigint; segment: number; startStep: number; endStep: number; match: boolean; hashMatch: boolean; seconds: number}
  | {type: 'committed'; taskId: bigint; index: bigint; gasUsed: bigint}
  | {type: 'challenged'; taskId: bigint; segment: number; claimedEndHash: Hex; index: bigint; gasUsed: bigint}
  | {type: 'settle'; taskId: bigint; gasUsed: bigint; outcome: SettleReport['outcome']}
  | {type: 'dispute'; taskId: bigint; event: DisputeAgentEvent}

export type ChallengeOnceOptions = {
  connection: SignedConnection
  taskId: bigint
  /** After challenging, play the dispute and pump settle until the challenge is decided. */
  wait?: boolean | undefined
  segmentsToCheck?: number | undefined
  /** Re-checks on this backend as a tolerance-mode verifier does (recheckTask); without it, on the proof's own runtime. */
  tolerance?: RecheckOptions['tolerance']
  /** Seeds which segments it replays when there are more than 8 (default: random). */
  seed?: Hex | undefined
  pollMs?: number | undefined
  signal?: AbortSignal | undefined
  onEvent?: ((event: ChallengeOnceEvent) => void) | undefined
}

/** Plain JSON: what `gensyn challenge --task` prints. */
export type ChallengeOnceResult = {
  taskId: string
  checked: number[]
  mismatch: boolean
  challenged: boolean
  segment?: number
  claimedEndHash?: Hex
  transactionHash?: Hex
  /** With wait: the dispute's outcome and where the task ended up. */
  disputeId?: string
  outcome?: DisputeOutcome
  status?: TaskStatus
}

/**
 * Re-checks one task's accepted verdict now (docs/disputes.md, lifecycle 6) and challenges it when a replayed
 * segment does not match: commits in the challenge window, waits for the open window and opens (a rerun after a
 * crash between the two reads its commitment back and opens it); with `wait` it then plays the dispute
 * (timeouts, arbitration) and pumps settle until the market has applied the outcome.
 */
export async function challengeOnce(options: ChallengeOnceOptions): Promise<ChallengeOnceResult> {
  const {connection, taskId, signal} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  const task = await existingTask(connection, taskId)
  const now = await chainTime(connection)
  if (task.status !== 'Verified' || !task.accepted) {
    throw new BaseError(`task ${taskId}: expected an accepted verdict to challenge, the task is ${task.status}${task.status === 'Verified' ? ' (rejected)' : ''}`)
  }
  const pending = await pendingClaim(connection, task)
  if (pending) return openAndPlay(options, task, {taskId: taskId.toString(), checked: [], mismatch: true, challenged: false}, pending)
  if (now.number >= task.challengeEndBlock) throw new BaseError(`task ${taskId}: its challenge window closed at block ${task.challengeEndBlock} (now ${now.number})`)
  if (task.solver === me || task.verifier === me) throw new BaseError(`task ${taskId}: its own solver or verifier cannot challenge it`)
  await ensureRegistered(connection, {role: 'whistleblower'})

  const recheck = await recheckTask(connection, task, {
    segmentsToCheck: options.segmentsToCheck,
    tolerance: options.tolerance,
    random: seededRandom(options.seed),
    signal,
    onSegment: (replay: SegmentReplay) =>
      emit({type: 'segment', taskId, segment: replay.segment, startStep: replay.startStep, endStep: replay.endStep, match: replay.match, hashMatch: replay.hashMatch, seconds: replay.seconds}),
  })
  if (recheck.skipped) throw new BaseError(`task ${taskId}: ${recheck.skipped}`)
  const result: ChallengeOnceResult = {taskId: taskId.toString(), checked: recheck.checked, mismatch: recheck.mismatch !== undefined, challenged: false}
  if (!recheck.mismatch || signal?.aborted) return result

  return openAndPlay(options, task, result, {segment: recheck.mismatch.segment, claimedEndHash: recheck.mismatch.actual})
}

/** Commits (unless `claim.committed`) and opens the claim, then with `wait` plays the challenge out. */
async function openAndPlay(options: ChallengeOnceOptions, task: Task, result: ChallengeOnceResult, claim: ChallengeClaim & {committed?: boolean}): Promise<ChallengeOnceResult> {
  const {connection, taskId, signal} = options
  const emit = options.onEvent ?? (() => {})
  const opening = {pollMs: options.pollMs, signal, onCommitted: (commit: {index: bigint; gasUsed: bigint}) => emit({type: 'committed', taskId, index: commit.index, gasUsed: commit.gasUsed})}
  const transaction = claim.committed ? await openWhenDue(connection, task, claim, opening) : await commitAndOpen(connection, task, claim, opening)
  emit({type: 'challenged', taskId, segment: claim.segment, claimedEndHash: claim.claimedEndHash, index: transaction.index, gasUsed: transaction.gasUsed})
  const opened = {...result, challenged: true, segment: claim.segment, claimedEndHash: claim.claimedEndHash, transactionHash: transaction.hash}
  return options.wait ? playOut(options, task, opened, Number(transaction.index)) : opened
}

/** Plays the dispute settle opens for challenge `index` and pumps settle until the market applied it. */
async function playOut(options: ChallengeOnceOptions, task: Task, result: ChallengeOnceResult, index: number): Promise<ChallengeOnceResult> {
  const {connection, taskId, signal} = options
  const emit = options.onEvent ?? (() => {})
  // The game settle opens for this challenge (this account may be a party to others: they are played too).
  let disputeId: bigint | undefined
  const agent = createDisputeAgent({
    connection,
    serveCommittee: false,
    onEvent: (event) => {
      if (event.taskId === taskId && event.type === 'joined' && event.role === 'challenger') disputeId = event.disputeId
      emit({type: 'dispute', taskId: event.taskId, event})
    },
  })
  for (;;) {
    await agent.poll()
    const current = await getTask(connection, {taskId})
    const mine = current.proofRoot === task.proofRoot ? (await getChallenges(connection, {taskId}))[index] : undefined
    if (mine && mine.disputeId !== 0n) disputeId = mine.disputeId
    if (current.status !== 'Verified' || mine === undefined || mine.state === 'Done' || signal?.aborted) {
      // One more poll so that the agent has seen the outcome of a game another party ended.
      await agent.poll()
      const outcome = disputeId === undefined ? undefined : (agent.resolved.get(disputeId) ?? (await getDispute(connection, {disputeId})).outcome)
      return {...result, ...(disputeId === undefined ? {} : {disputeId: disputeId.toString()}), ...(outcome ? {outcome} : {}), status: current.status}
    }
    const now = await chainTime(connection)
    await pumpSettle(connection, [current], now, (report) => emit({type: 'settle', taskId, gasUsed: report.gasUsed, outcome: report.outcome}))
    await waitForNewHead(connection, now.number, options)
  }
}

/** A challenge this account committed to on the task's verdict and has not opened yet, read back from the chain. */
async function pendingClaim(connection: SignedConnection, task: Task): Promise<(ChallengeClaim & {committed: true}) | undefined> {
  const mine = (await getChallenges(connection, {taskId: task.id})).find((challenge) => challenge.whistleblower === connection.account.address)
  if (mine?.state !== 'Committed') return undefined
  const claim = await readCommittedClaim(connection, task)
  if (!claim) throw new BaseError(`task ${task.id}: this account committed a challenge whose claim it cannot read back`)
  return {...claim, committed: true}
}

async function existingTask(connection: SignedConnection, taskId: bigint): Promise<Task> {
  try {
    const task = await getTask(connection, {taskId})
    if (task.status === 'None') throw new InvalidInputError(`--task: no task ${taskId} on the market`)
    return task
  } catch (error) {
    if (isRevert(error, 'TaskNotFound')) throw new InvalidInputError(`--task: no task ${taskId} on the market`)
    throw error
  }
}
