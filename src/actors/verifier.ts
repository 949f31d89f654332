import type {Hex} from 'viem'

import {type RuntimeId, runtimeIdString, sameRuntime, selectBackend} from '../ml/backend/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import {type ProfileResult, type ProofManifest, type Thresholds, type VerificationMode, verifyProof} from '../pol/index.js'
import {getThreshold, modelClassOf, runtimeClassOf} from '../protocol/postProfile.js'
import {verdictDistance} from '../pol/verdictDistance.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {isRevert} from '../protocol/errors.js'
import {claimVerification, postVerdict} from '../protocol/marketActions.js'
import type {Task} from '../protocol/types.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {type RoleLoopOptions, runRoleLoop} from './runRoleLoop.js'

export type VerifierEvent =
  | {type: 'ready'; address: Hex; runtime: string}
  | {type: 'skipped'; taskId: bigint; reason: string}
  | {type: 'inconclusive'; taskId: bigint; reason: string}
  | {type: 'claimed'; taskId: bigint; randomness: Hex; gasUsed: bigint}
  | {type: 'segment'; taskId: bigint; segment: number; startStep: number; endStep: number; match: boolean; seconds: number}
  | {type: 'verdict'; taskId: bigint; accepted: boolean; reason?: string | undefined; reportHash: Hex; distance: bigint; verifySeconds: number; gasUsed: bigint}
  | {type: 'settled'; taskId: bigint; gasUsed: bigint}
  | {type: 'lost-race'; taskId: bigint; reason: string}

export type VerifierOptions = RoleLoopOptions<VerifierEvent> & {
  /**
   * exact (default): replay on the proof's own runtime, bit for bit. tolerance: replay on this verifier's
   * backend, within the thresholds a profile posted on chain for the job's model class and the runtime
   * class {proof runtime, this runtime} (docs/verification.md, "On chain").
   */
  mode?: VerificationMode | undefined
}

export type VerifiedTask = {taskId: bigint; accepted: boolean; reportHash: Hex}

/**
 * The verifier's role loop: once a proof is committed and a later block exists, claim the verification
 * (which reveals the sampling randomness), replay the sampled segments, post the verdict, and settle the
 * task after its challenge window.
 */
export async function runVerifier(options: VerifierOptions): Promise<VerifiedTask[]> {
  const {connection, signal} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address

  const mode = options.mode ?? 'exact'
  const runtime = await selectBackend(options.backend)
  await ensureRegistered(connection, 'verifier')
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime)})
  // Tasks whose proofs were made on a runtime this verifier cannot reproduce bit for bit: left to others.
  const unverifiable = new Set<bigint>()
  const lostRaces = new Set<bigint>()

  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.verifier === me && task.status === 'Verified',
    pick(tasks, now, mayTakeMore) {
      const held = tasks.find((task) => task.verifier === me && task.status === 'Verifying' && now.timestamp <= task.deadline)
      if (held) return {task: held, held: true}
      const ready = tasks.find(
        (task) =>
          task.status === 'Committed' &&
          task.solver !== me &&
          !unverifiable.has(task.id) &&
          !lostRaces.has(task.id) &&
          now.timestamp <= task.deadline &&
          now.number > task.commitBlock + 1n,
      )
      return ready && mayTakeMore ? {task: ready, held: false} : undefined
    },
    work: verifyTask,
    onSettled: (taskId, gasUsed) => emit({type: 'settled', taskId, gasUsed}),
  })

  async function verifyTask(task: Task, alreadyClaimed: boolean): Promise<VerifiedTask | undefined> {
    let randomness = task.randomness
    const spec = await loadTaskSpec(connection, task)
    const manifestRuntime = await runtimeOfProof(task.manifestHash)
    const thresholds = mode === 'tolerance' && manifestRuntime ? await postedThresholds(spec, manifestRuntime) : undefined
    if (!alreadyClaimed) {
      const skip =
        mode === 'exact'
          ? manifestRuntime && !sameRuntime(manifestRuntime, runtime)
            ? `proof runtime ${runtimeIdString(manifestRuntime)} differs from ${runtimeIdString(runtime)}`
            : undefined
          : manifestRuntime && !thresholds
            ? `no threshold posted for this model on ${runtimeIdString(manifestRuntime)} + ${runtimeIdString(runtime)}`
            : undefined
      if (skip) {
        unverifiable.add(task.id)
        emit({type: 'skipped', taskId: task.id, reason: skip})
        return undefined
      }
      await ensureRegistered(connection, 'verifier')
      try {
        const claim = await claimVerification(connection, task.id)
        randomness = claim.randomness
        emit({type: 'claimed', taskId: task.id, randomness, gasUsed: claim.gasUsed})
      } catch (error) {
        if (isRevert(error, 'InvalidStatus', 'DeadlinePassed', 'RandomnessNotReady')) {
          if (error.errorName === 'RandomnessNotReady') return undefined // try again on a later block
          emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
          lostRaces.add(task.id)
          return undefined
        }
        throw error
      }
    }
    const started = performance.now()
    const report = await verifyProof({
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
        emit({type: 'segment', taskId: task.id, segment: segment.segment, startStep: segment.startStep, endStep: segment.endStep, match: segment.match, seconds: segment.seconds}),
    })
    if (signal?.aborted) return undefined
    if (report.inconclusive) {
      // Not a verdict on the solver: posting a rejection would slash an honest party.
      emit({type: 'inconclusive', taskId: task.id, reason: report.reason ?? 'runtime unavailable'})
      return undefined
    }
    const reportHash = await connection.store.putJson(report)
    const distance = verdictDistance(report)
    const verdict = await postVerdict(connection, task.id, report.accepted, reportHash, distance)
    emit({
      type: 'verdict',
      taskId: task.id,
      accepted: report.accepted,
      reason: report.reason,
      reportHash,
      distance,
      verifySeconds: (performance.now() - started) / 1000,
      gasUsed: verdict.gasUsed,
    })
    return {taskId: task.id, accepted: report.accepted, reportHash}
  }

  /** The full thresholds behind the threshold posted for the job's model on {proof runtime, this runtime}, if any. */
  async function postedThresholds(spec: JobSpec, proofRuntime: RuntimeId): Promise<Thresholds | undefined> {
    const posted = await getThreshold(connection, modelClassOf(spec), runtimeClassOf([proofRuntime, runtime]))
    if (posted.threshold === 0n) return undefined
    return (await connection.store.getJson<ProfileResult>(posted.profileHash)).thresholds
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
