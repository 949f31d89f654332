import {type Address, type Hex, zeroHash} from 'viem'

import {skipsReplay, uncheckedReport, type VerifierStrategyName} from '../adversary/verifierStrategies.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import {createDisputeAgent, type DisputeAgentEvent} from '../dispute/createDisputeAgent.js'
import {type RuntimeId, runtimeIdString, sameRuntime, selectBackend} from '../ml/backend/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import {checkpointSchedule, taskStepRange} from '../ml/train/index.js'
import {
  finalCheckpointOf,
  type ProofManifest,
  replaySegment,
  selectSegments,
  type Thresholds,
  type VerificationMode,
  type VerificationReport,
  verifyProof,
} from '../pol/index.js'
import {verdictDistance} from '../pol/verdictDistance.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {isRevert, toProtocolError} from '../protocol/errors.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {getTask} from '../protocol/getTask.js'
import {claimVerification, postVerdict, renewRandomness, type SettleOutcome} from '../protocol/marketActions.js'
import {pinnedThresholds} from '../protocol/pinnedThresholds.js'
import type {Task} from '../protocol/types.js'
import {canonicalJsonBytes, sha256Hex} from '../store/index.js'
import {type RoleLoopOptions, runRoleLoop} from './runRoleLoop.js'

export type VerifierEvent =
  | {type: 'ready'; address: Hex; runtime: string; strategy: VerifierStrategyName}
  | {type: 'skipped'; taskId: bigint; reason: string}
  | {type: 'inconclusive'; taskId: bigint; reason: string}
  | {type: 'claimed'; taskId: bigint; randomness: Hex; gasUsed: bigint}
  | {type: 'segment'; taskId: bigint; segment: number; startStep: number; endStep: number; match: boolean; hashMatch: boolean; seconds: number}
  | {
      type: 'verdict'
      taskId: bigint
      accepted: boolean
      reason?: string | undefined
      reportHash: Hex
      distance: bigint
      /** A rejection's claim: the failing segment and the end hash its replay gave (0 / zero hash on acceptance). */
      segment: number
      replayHash: Hex
      /** False when the verifier's strategy accepted without replaying (lazy, colluding). */
      replayed: boolean
      verifySeconds: number
      gasUsed: bigint
    }
  | {type: 'settle'; taskId: bigint; gasUsed: bigint; outcome: SettleOutcome}
  | {type: 'dispute'; event: DisputeAgentEvent}
  | {type: 'lost-race'; taskId: bigint; reason: string}
  /** Something it passed over that its operator should know, e.g. a pinned profile the store could not give. */
  | {type: 'warning'; taskId: bigint; message: string}

export type VerifierOptions = RoleLoopOptions<VerifierEvent> & {
  /**
   * exact (default): replay on the proof's own runtime, bit for bit. tolerance: replay on this verifier's
   * backend, within the thresholds of the profile the job pins for the runtime class {proof runtime, this
   * runtime}; a job that pins none for it is skipped (docs/verification.md, "Thresholds are pinned by the job").
   */
  mode?: VerificationMode | undefined
  /** `honest` (default), `lazy` or `colluding` (docs/adversaries.md). */
  strategy?: VerifierStrategyName | undefined
  /** colluding: the solvers whose proofs it accepts without replaying. */
  colludeWith?: readonly Address[] | undefined
  /** Wait this long after first seeing a committed proof before claiming its verification. */
  claimDelayMs?: number | undefined
}

/**
 * Verifier stakes a verifier keeps deposited: one to lock for the task it verifies, one free so that it can still
 * be drawn for a dispute committee meanwhile (a member needs free stake >= verifierStake, docs/disputes.md).
 */
const stakesHeld = 2

export type VerifiedTask = {taskId: bigint; accepted: boolean; reportHash: Hex; segment: number; replayHash: Hex; replayed: boolean}

/** The verdict a verifier posts, with the report its hash commits to. */
type Decision = {report: unknown; accepted: boolean; reason?: string | undefined; distance: bigint; segment: number; replayHash: Hex; replayed: boolean}

/**
 * The verifier's role loop: once a proof is committed and a later block exists, claim the verification
 * (which reveals the sampling randomness), replay the sampled segments, post the verdict (a rejection names
 * the first failing segment and the hash its replay gave), serve on dispute committees, and pump settle on
 * its verified tasks after their reveal window.
 */
export async function runVerifier(options: VerifierOptions): Promise<VerifiedTask[]> {
  const {connection, signal} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  const strategy = options.strategy ?? 'honest'
  const colludeWith = options.colludeWith ?? []

  const mode = options.mode ?? 'exact'
  const runtime = await selectBackend(options.backend)
  await ensureRegistered(connection, 'verifier', stakesHeld)
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime), strategy})
  // A proof is one attempt at a task: `id:commitBlock`. A task re-verified after a forced error or a dispute
  // is a new proof (or the same one, again), so skips and lost races are remembered per attempt.
  const attemptOf = (task: Pick<Task, 'id' | 'commitBlock'>) => `${task.id}:${task.commitBlock}`
  const passed = new Set<string>()
  const firstSeen = new Map<string, number>()

  // Committee duty: a verifier with free stake may be drawn to vote on any dispute it is not a party of.
  const agent = createDisputeAgent({
    connection,
    store: connection.store,
    stance: 'honest',
    serveCommittee: true,
    onEvent: (event) => emit({type: 'dispute', event}),
  })

  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.verifier === me && task.status === 'Verified',
    pick(tasks, now, mayTakeMore) {
      const held = tasks.find((task) => task.verifier === me && task.status === 'Verifying' && now.timestamp <= task.deadline)
      if (held) return {task: held, held: true}
      const committed = tasks.filter((task) => task.status === 'Committed')
      for (const task of committed) if (!firstSeen.has(attemptOf(task))) firstSeen.set(attemptOf(task), performance.now())
      const waited = (task: Task) => performance.now() - (firstSeen.get(attemptOf(task)) ?? 0) >= (options.claimDelayMs ?? 0)
      const ready = committed.find(
        (task) => task.solver !== me && !passed.has(attemptOf(task)) && now.timestamp <= task.deadline && now.number > task.commitBlock + 1n && waited(task),
      )
      return ready && mayTakeMore ? {task: ready, held: false} : undefined
    },
    work: verifyTask,
    duties: () => agent.poll(),
    onSettled: (report) => emit({type: 'settle', ...report}),
    onTaskReverted: ({taskId, message}) => emit({type: 'warning', taskId, message}),
  })

  async function verifyTask(task: Task, alreadyClaimed: boolean): Promise<VerifiedTask | undefined> {
    let randomness = task.randomness
    const spec = await loadTaskSpec(connection, task)
    const unchecked = skipsReplay(strategy, task.solver, colludeWith)
    const manifestRuntime = await runtimeOfProof(task.manifestHash)
    const thresholds = !unchecked && mode === 'tolerance' && manifestRuntime ? await jobThresholds(task, spec, manifestRuntime) : undefined
    if (!alreadyClaimed) {
      const skip = (await isBarred(task.id))
        ? 'barred from this task (an earlier verdict of ours on it was overturned, or we accepted its forced error)'
        : unchecked
          ? undefined
          : mode === 'exact'
            ? manifestRuntime && !sameRuntime(manifestRuntime, runtime)
              ? `proof runtime ${runtimeIdString(manifestRuntime)} differs from ${runtimeIdString(runtime)}`
              : undefined
            : manifestRuntime && !thresholds
              ? `no threshold pinned by the job for ${runtimeIdString(manifestRuntime)} + ${runtimeIdString(runtime)}`
              : undefined
      if (skip) {
        passed.add(attemptOf(task))
        emit({type: 'skipped', taskId: task.id, reason: skip})
        return undefined
      }
      await ensureRegistered(connection, 'verifier', stakesHeld)
      try {
        const claim = await claimVerification(connection, task.id)
        randomness = claim.randomness
        emit({type: 'claimed', taskId: task.id, randomness, gasUsed: claim.gasUsed})
      } catch (error) {
        if (isRevert(error, 'RandomnessExpired')) {
          // Nobody claimed it within 256 blocks of the commit: move the draw to the next block, claim after it.
          await renewRandomness(connection, task.id).catch((renewError: unknown) => {
            if (!isRevert(renewError, 'RandomnessNotExpired', 'InvalidStatus', 'DeadlinePassed')) throw renewError
          })
          return undefined
        }
        if (isRevert(error, 'InvalidStatus', 'DeadlinePassed', 'RandomnessNotReady', 'VerifierBarred', 'SolverCannotVerify')) {
          if (error.errorName === 'RandomnessNotReady') return undefined // try again on a later block
          emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
          passed.add(attemptOf(task))
          return undefined
        }
        throw error
      }
    }
    const started = performance.now()
    const decision = unchecked ? decideUnchecked(task) : await decideByReplay(task, spec, randomness, thresholds)
    if (!decision) return undefined
    const reportHash = await connection.store.putJson(decision.report)
    const verdict = await postVerdict(connection, task.id, {
      accepted: decision.accepted,
      reportHash,
      distance: decision.distance,
      segment: decision.segment,
      replayHash: decision.replayHash,
    })
    emit({
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

  /** lazy, or colluding with this task's solver: accept without replaying, and say so in the report. */
  function decideUnchecked(task: Task): Decision {
    const report = uncheckedReport(strategy === 'lazy' ? 'lazy' : 'colluding', task.manifestHash, task.proofRoot)
    return {report, accepted: true, reason: report.reason, distance: 0n, segment: 0, replayHash: zeroHash, replayed: false}
  }

  async function decideByReplay(task: Task, spec: JobSpec, randomness: Hex, thresholds: Thresholds | undefined): Promise<Decision | undefined> {
    const report = await verifyProof({
      startCheckpoint: await parentFinalCheckpoint(task),
      mode,
      thresholds,
      spec,
      store: connection.store,
      manifestHash: task.manifestHash,
      proofRoot: task.proofRoot,
      randomness,
      segments: spec.verification.segments,
      backend: options.backend,
      onSegment: (segment) =>
        emit({type: 'segment', taskId: task.id, segment: segment.segment, startStep: segment.startStep, endStep: segment.endStep, match: segment.match, hashMatch: segment.hashMatch, seconds: segment.seconds}),
    })
    if (signal?.aborted) return undefined
    if (report.inconclusive) {
      // Not a verdict on the solver: posting a rejection would slash an honest party.
      emit({type: 'inconclusive', taskId: task.id, reason: report.reason ?? 'runtime unavailable'})
      return undefined
    }
    const scheduleProblem = onchainScheduleProblem(task, spec, await manifestOf(task.manifestHash))
    const distance = verdictDistance(report)
    if (report.accepted && !scheduleProblem) return {report, accepted: true, distance, segment: 0, replayHash: zeroHash, replayed: true}
    const reason = report.accepted ? scheduleProblem : report.reason
    const claim = await rejectionClaim(task, spec, randomness, report, thresholds)
    return {report: {...report, accepted: false, reason, claim}, accepted: false, reason, distance, replayed: true, ...claim}
  }

  /**
   * What a rejection claims on chain: the segment that failed and the end hash the replay gave, which the
   * solver may contest in the pinpoint game. The first failed replay when there is one. A proof that broke the
   * early-stop rule (every replay matched) names the last segment and its replay (docs/market.md, "Known
   * limits": the game cannot see the rule). A proof rejected by an earlier check (initial weights, schedule) is
   * replayed until a sampled segment fails, so the claim is one the game can decide; only when every replay
   * matches does it name segment 0 with the report's own hash (docs/adversaries.md: such a rejection is right,
   * but the game cannot uphold it).
   */
  async function rejectionClaim(task: Task, spec: JobSpec, randomness: Hex, report: VerificationReport, thresholds: Thresholds | undefined): Promise<{segment: number; replayHash: Hex}> {
    const failed = report.segments.find((segment) => !segment.match)
    if (failed) return {segment: failed.segment, replayHash: failed.actual}
    const manifest = await manifestOf(task.manifestHash)
    if (!manifest) return fallbackClaim(report)
    // The on-chain schedule is the one the game plays: segment s spans [s * interval, min((s + 1) * interval, totalSteps)]
    // of the task's steps, which are the job's steps from the task's range start on (a split task's are not from 0).
    const start = taskStepRange(spec).start
    const onchain = manifest.checkpoints.map((checkpoint, index) => ({
      hash: checkpoint.hash,
      step: start + (index === manifest.checkpoints.length - 1 ? Number(task.totalSteps) : Math.min(index * Number(task.checkpointInterval), Number(task.totalSteps))),
    }))
    const relabelled: ProofManifest = {...manifest, checkpoints: onchain}
    const segmentCount = onchain.length - 1
    if (report.checks.stopRule === 'fail' && segmentCount >= 1) {
      const last = segmentCount - 1
      const replayed = report.segments.find((segment) => segment.segment === last)
      if (replayed) return {segment: last, replayHash: replayed.actual}
      try {
        const replay = await replaySegment({spec, store: connection.store, manifest: relabelled, segment: last, backend: options.backend, mode, thresholds})
        return {segment: last, replayHash: replay.actual}
      } catch {
        return fallbackClaim(report)
      }
    }
    const sampled = segmentCount < 1 ? [] : selectSegments({randomness, segmentCount, count: Math.min(spec.verification.segments, segmentCount)})
    const candidates = [...new Set([...sampled, 0, segmentCount - 1])].filter((segment) => segment >= 0 && segment < segmentCount)
    for (const segment of candidates) {
      try {
        const replay = await replaySegment({spec, store: connection.store, manifest: relabelled, segment, backend: options.backend, mode, thresholds})
        if (!replay.match) return {segment, replayHash: replay.actual}
      } catch {
        // A segment that cannot be replayed (missing or foreign checkpoint) gives no hash to claim.
      }
    }
    return fallbackClaim(report)
  }

  function fallbackClaim(report: VerificationReport): {segment: number; replayHash: Hex} {
    return {segment: 0, replayHash: reportDigest(report)}
  }

  /**
   * A split task's start: the final checkpoint of its parent's accepted proof (the contract proves the same at
   * commit; this is a second line with a clear message). Undefined for a task without a parent, or when the
   * parent's manifest cannot be read (then only the start's step is checked).
   */
  async function parentFinalCheckpoint(task: Task): Promise<Hex | undefined> {
    if (task.parentId === 0n) return undefined
    const parent = await getTask(connection, task.parentId)
    const manifest = await manifestOf(parent.manifestHash)
    return manifest && manifest.checkpoints.length > 0 ? finalCheckpointOf(manifest).hash : undefined
  }

  /** A proof manifest from the store, or undefined when it is missing or not JSON (verifyProof then rejects the proof). */
  async function manifestOf(manifestHash: Hex): Promise<ProofManifest | undefined> {
    try {
      return await connection.store.getJson<ProofManifest>(manifestHash)
    } catch {
      return undefined
    }
  }

  /** A verifier whose verdict was overturned (or that accepted a revealed forced error) may not verify the task again. */
  async function isBarred(taskId: bigint): Promise<boolean> {
    try {
      return await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'isVerifierBarred', args: [taskId, me]})
    } catch (error) {
      throw toProtocolError('isVerifierBarred', error)
    }
  }

  /**
   * The thresholds of the profile the job pins for {proof runtime, this runtime}, if any: never a registry entry,
   * which anyone with the free verifier role can post. A pin the store cannot give is passed over, with a warning.
   */
  async function jobThresholds(task: Task, spec: JobSpec, proofRuntime: RuntimeId): Promise<Thresholds | undefined> {
    const {pinned, unreadable} = await pinnedThresholds(connection, {spec, runtimes: [proofRuntime, runtime]})
    for (const pin of unreadable) emit({type: 'warning', taskId: task.id, message: `pinned profile ${pin.profileHash} passed over: ${pin.reason}`})
    return pinned?.thresholds
  }

  /** The runtime a proof names, or undefined when its manifest is missing or malformed (verifyProof then rejects it). */
  async function runtimeOfProof(manifestHash: Hex): Promise<ProofManifest['runtime'] | undefined> {
    try {
      return (await connection.store.getJson<ProofManifest>(manifestHash)).runtime
    } catch {
      return undefined
    }
  }
}

/**
 * The on-chain schedule (checkpointInterval, totalSteps, checkpointCount) must be the proof's: the dispute game
 * plays segments by the on-chain numbers (checkpoint s is the state after absolute step start + min(s * interval,
 * totalSteps), start = the task's range start), and the market pays by totalSteps, so a commit whose numbers
 * disagree with the manifest (checked against the spec by verifyProof) is rejected. totalSteps is the steps the
 * task performed: its whole range (end - start), or, with `training.stopAt`, up to the checkpoint where the
 * proof stopped (the manifest's last step - start; without a manifest, any checkpoint of the range).
 */
export function onchainScheduleProblem(
  task: Pick<Task, 'checkpointInterval' | 'totalSteps' | 'checkpointCount'>,
  spec: JobSpec,
  manifest?: Pick<ProofManifest, 'checkpoints'> | undefined,
): string | undefined {
  const {start, end} = taskStepRange(spec)
  const schedule = checkpointSchedule(spec)
  const interval = BigInt(spec.proof.checkpointInterval)
  if (task.checkpointInterval !== interval) return `on-chain checkpointInterval: expected ${interval} (the job's), got ${task.checkpointInterval}`
  const last = manifest?.checkpoints.at(-1)?.step
  const allowed =
    last !== undefined ? [last - start] : spec.training.stopAt === undefined ? [end - start] : schedule.slice(1).map((step) => step - start)
  if (!allowed.some((steps) => BigInt(steps) === task.totalSteps)) {
    const expected = allowed.length === 1 ? `${allowed[0]}` : `one of ${allowed.join(', ')}`
    return `on-chain totalSteps: expected ${expected} (the ${last !== undefined ? "proof's" : "task's"} steps from ${start}), got ${task.totalSteps}`
  }
  const count = schedule.filter((step) => step - start <= Number(task.totalSteps)).length
  if (task.checkpointCount !== count) return `on-chain checkpointCount: expected ${count} (for ${task.totalSteps} steps), got ${task.checkpointCount}`
  return undefined
}

/** A non-zero hash that names the verification report when no replay gives one: sha256 of its canonical JSON. */
function reportDigest(report: VerificationReport): Hex {
  return sha256Hex(canonicalJsonBytes(report))
}
