import {type Hex, keccak256, toHex} from 'viem'

import {type DisputeAgentEvent, createDisputeAgent} from '../dispute/createDisputeAgent.js'
import type {SegmentReplay} from '../pol/index.js'
import type {SignedConnection} from '../protocol/connect.js'
import {type ChallengeClaim, readCommittedClaim} from '../protocol/challengeCommitment.js'
import {commitChallenge, openChallenge} from '../protocol/disputeActions.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {isRevert} from '../protocol/errors.js'
import {getChallenges} from '../protocol/getChallenges.js'
import {listTasks} from '../protocol/listTasks.js'
import type {Task} from '../protocol/types.js'
import type {BlobStore} from '../store/types.js'
import {chainTime} from './chainTime.js'
import {type RecheckOptions, recheckTask} from './recheckTask.js'
import {seededRandom} from '../random/seededRandom.js'
import {pumpExpire, pumpSettle, type SettleReport} from './runRoleLoop.js'
import {waitForNewHead} from './waitForNewHead.js'
import {type MembershipEvent, updateMembership} from './updateMembership.js'

export const whistleblowerStrategies = ['honest', 'griefer'] as const
export type WhistleblowerStrategy = (typeof whistleblowerStrategies)[number]

export type WhistleblowerEvent =
  | {type: 'ready'; address: Hex; strategy: WhistleblowerStrategy}
  | MembershipEvent
  | {type: 'checking'; taskId: bigint}
  | {type: 'segment'; taskId: bigint; segment: number; startStep: number; endStep: number; match: boolean; hashMatch: boolean; seconds: number}
  | {type: 'clean'; taskId: bigint; segments: number[]}
  | {type: 'skipped'; taskId: bigint; reason: string}
  /** It committed to a challenge (the claim stays hidden until it opens it in the open window). */
  | {type: 'committed'; taskId: bigint; index: bigint; gasUsed: bigint}
  /** It opened its committed challenge: queued to be played at settle. */
  | {type: 'challenged'; taskId: bigint; segment: number; claimedEndHash: Hex; index: bigint; gasUsed: bigint}
  | {type: 'lost-race'; taskId: bigint; reason: string}
  | {type: 'settle'; taskId: bigint; gasUsed: bigint; outcome: SettleReport['outcome']}
  | {type: 'dispute'; taskId: bigint; event: DisputeAgentEvent}
  /** It expired a claimed task past its training deadline: the solver timed out, the task is back in the pool. */
  | {type: 'expired'; taskId: bigint; solver: Hex; gasUsed: bigint}

export type WhistleblowerOptions = {
  connection: SignedConnection
  store?: BlobStore | undefined
  /** Keep watching until aborted; otherwise one pass (join or leave, check at most one task, play, settle). */
  loop: boolean
  /** It joins while fewer than this many whistleblowers are active, and leaves when more are (default 3). */
  maxActive?: number | undefined
  /**
   * Its cost to re-check one task, in wei (default 0): it joins only while its share of the expected jackpot
   * (min(jackpot, cap) × forcedErrorBps / 10000 / active whistleblowers) covers it, and leaves when it no longer does.
   */
  checkCost?: bigint | undefined
  /** Segments replayed per task when a proof has more than 8 (default 2). */
  segmentsToCheck?: number | undefined
  /** Re-checks on this backend as a tolerance-mode verifier does (recheckTask); without it, on each proof's own runtime. */
  tolerance?: RecheckOptions['tolerance']
  /** `griefer` challenges correct work with made-up hashes, without replaying anything. */
  strategy?: WhistleblowerStrategy | undefined
  signal?: AbortSignal | undefined
  onEvent?: ((event: WhistleblowerEvent) => void) | undefined
  pollMs?: number | undefined
  /** Its seed (a devnet derives one per actor): which task it checks and a griefer's claims replay with the run. */
  seed?: Hex | undefined
}

export type WhistleblowerSummary = {checked: bigint[]; challenged: bigint[]}

export type Whistleblower = {
  /** Registers the WHISTLEBLOWER role and stakes one challenge deposit if needed (once, before the first tick). */
  start(): Promise<void>
  /**
   * One iteration: join or leave the active set, play its disputes, pump settle on the tasks it challenged, and
   * (while active) re-check one task. Returns whether it re-checked one (a caller waits a poll interval when not).
   */
  tick(): Promise<boolean>
  readonly summary: WhistleblowerSummary
  /** The block the last tick judged by (0 before the first): a loop waits for a newer one (waitForNewHead). */
  readonly head: bigint
}

/**
 * The litepaper's whistleblower (docs/disputes.md, "Forced errors, the jackpot and whistleblowers"): it stakes
 * its challenge deposit, joins the active set while `activeWhistleblowers < maxActive` and its share of the
 * expected jackpot covers `checkCost`, and leaves when the count rises above it or the share no longer covers
 * the cost (updateMembership, docs/economics.md); while active it picks a random accepted task in its challenge window that it has not
 * checked, replays its segments (all of them up to 8, else `segmentsToCheck` random ones) and commits to a
 * challenge of the first mismatch with its replay's hash, which it opens in the open window (docs/security.md,
 * finding 6). Every iteration it opens what is due, plays its disputes (the dispute agent) and pumps settle on the
 * tasks it challenged. A griefer challenges accepted tasks with made-up hashes instead.
 */
export async function runWhistleblower(options: WhistleblowerOptions): Promise<WhistleblowerSummary> {
  const whistleblower = createWhistleblower(options)
  await whistleblower.start()
  while (!options.signal?.aborted) {
    const worked = await whistleblower.tick()
    if (!options.loop) break
    if (!worked) await waitForNewHead(options.connection, whistleblower.head, options)
  }
  return whistleblower.summary
}

/** The whistleblower's state and one iteration of its loop, for {@link runWhistleblower} and for tests that interleave it with other actors. */
export function createWhistleblower(options: Omit<WhistleblowerOptions, 'loop' | 'pollMs'>): Whistleblower {
  const {connection, signal} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  const strategy = options.strategy ?? 'honest'
  const maxActive = BigInt(options.maxActive ?? 3)
  const membership = {connection, checkCost: options.checkCost ?? 0n, maxActive, lastDecision: '', emit}
  const summary: WhistleblowerSummary = {checked: [], challenged: []}
  const seen = new Set<string>()
  const challenged = new Set<bigint>()
  const unopened: Unopened = new Map()
  // One stream for its own choices (which task, a griefer's claims, which segments): a replay draws the same.
  const random = seededRandom(options.seed)

  const agent = createDisputeAgent({
    connection,
    store: options.store,
    stance: strategy === 'griefer' ? 'griefer' : 'honest',
    // Whistleblowers are not committee members (only staked verifiers are drawn).
    serveCommittee: false,
    seed: options.seed,
    onEvent: (event) => emit({type: 'dispute', taskId: event.taskId, event}),
  })

  let head = 0n
  return {
    summary,
    get head() {
      return head
    },
    async start() {
      await ensureRegistered(connection, {role: 'whistleblower'})
      // After a restart: the verified tasks it had challenged still need their settle pump, and a commitment not
      // yet opened is read back from its own sealed log.
      for (const task of await listTasks(connection, {status: ['Verified']})) {
        const mine = task.accepted ? (await getChallenges(connection, {taskId: task.id})).find((challenge) => challenge.whistleblower === me) : undefined
        if (!mine) continue
        challenged.add(task.id)
        seen.add(attemptOf(task))
        const claim = mine.state === 'Committed' ? await readCommittedClaim(connection, task) : undefined
        if (claim) unopened.set(attemptOf(task), {task, claim})
      }
      emit({type: 'ready', address: me, strategy})
    },
    async tick() {
      const active = await updateMembership(membership)
      await agent.poll()
      const [tasks, now] = await Promise.all([listTasks(connection), chainTime(connection)])
      head = now.number
      await openDue(connection, unopened, tasks, now.number, emit)
      await pumpSettle(
        connection,
        tasks.filter((task) => challenged.has(task.id)),
        now,
        (report) => emit({type: 'settle', taskId: report.taskId, gasUsed: report.gasUsed, outcome: report.outcome}),
      )
      // Like every role loop: a solver that vanished must not hold its task for ever (docs/market.md, section 5).
      await pumpExpire(connection, tasks, now, (report) => emit({type: 'expired', taskId: report.taskId, solver: report.solver, gasUsed: report.gasUsed}))
      if (!active || signal?.aborted) return false
      const candidates = tasks.filter(
        (task) =>
          task.status === 'Verified' &&
          task.accepted &&
          // the challenge lands in a later block than the one read; it must still be <= challengeEndBlock
          now.number < task.challengeEndBlock &&
          task.solver !== me &&
          task.verifier !== me &&
          !seen.has(attemptOf(task)),
      )
      const task = candidates[Math.floor(random() * candidates.length)]
      if (!task) return false
      seen.add(attemptOf(task))
      summary.checked.push(task.id)
      if (await examine(task)) {
        challenged.add(task.id)
        summary.challenged.push(task.id)
      }
      return true
    },
  }

  /** Re-checks one task and commits to a challenge on a mismatch (a griefer commits without looking). */
  async function examine(task: Task): Promise<boolean> {
    emit({type: 'checking', taskId: task.id})
    let claim: {segment: number; claimedEndHash: Hex}
    if (strategy === 'griefer') {
      claim = {segment: Math.floor(random() * (task.checkpointCount - 1)), claimedEndHash: keccak256(toHex(`griefer:${task.id}:${random()}`))}
    } else {
      const result = await recheckTask({store: options.store ?? connection.store}, task, {
        segmentsToCheck: options.segmentsToCheck,
        tolerance: options.tolerance,
        random,
        signal,
        onSegment: (replay: SegmentReplay) =>
          emit({type: 'segment', taskId: task.id, segment: replay.segment, startStep: replay.startStep, endStep: replay.endStep, match: replay.match, hashMatch: replay.hashMatch, seconds: replay.seconds}),
      })
      if (result.skipped) {
        emit({type: 'skipped', taskId: task.id, reason: result.skipped})
        return false
      }
      if (!result.mismatch) {
        emit({type: 'clean', taskId: task.id, segments: result.checked})
        return false
      }
      claim = {segment: result.mismatch.segment, claimedEndHash: result.mismatch.actual}
    }
    if (signal?.aborted) return false
    try {
      await ensureRegistered(connection, {role: 'whistleblower'})
      const transaction = await commitChallenge(connection, {task, claim})
      unopened.set(attemptOf(task), {task, claim})
      emit({type: 'committed', taskId: task.id, index: transaction.index, gasUsed: transaction.gasUsed})
      return true
    } catch (error) {
      // The window closed while it replayed, the queue filled up, or the verdict changed under it.
      if (isRevert(error, 'ChallengeWindowClosed', 'ChallengeQueueFull', 'AlreadyChallenged', 'InvalidStatus', 'WrongVerdict')) {
        emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
        return false
      }
      throw error
    }
  }
}

// One look per proof: a task re-verified with another proof (after a forced error) is a new one.
const attemptOf = (task: Pick<Task, 'id' | 'proofRoot'>) => `${task.id}:${task.proofRoot}`

/** Commitments waiting for their open window, by attempt. */
type Unopened = Map<string, {task: Task; claim: ChallengeClaim}>

/** Opens every commitment whose open window has come (the transaction lands after the block read). */
async function openDue(connection: SignedConnection, unopened: Unopened, tasks: Task[], head: bigint, emit: (event: WhistleblowerEvent) => void): Promise<void> {
  for (const [attempt, {task, claim}] of unopened) {
    const current = tasks.find((candidate) => candidate.id === task.id)
    if (!current || current.status !== 'Verified' || attemptOf(current) !== attempt || head + 1n > current.openEndBlock) {
      unopened.delete(attempt)
      emit({type: 'lost-race', taskId: task.id, reason: 'the open window passed before the commitment was opened'})
      continue
    }
    // Simulated against the head before it is sent: the head itself must be past the challenge window.
    if (head <= current.challengeEndBlock) continue
    unopened.delete(attempt)
    try {
      const transaction = await openChallenge(connection, {task: current, claim})
      emit({type: 'challenged', taskId: task.id, segment: claim.segment, claimedEndHash: claim.claimedEndHash, index: transaction.index, gasUsed: transaction.gasUsed})
    } catch (error) {
      if (!isRevert(error, 'OutsideOpenWindow', 'AlreadyOpened', 'InvalidStatus')) throw error
      emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
    }
  }
}
