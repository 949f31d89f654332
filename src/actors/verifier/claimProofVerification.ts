import type {Hex} from 'viem'

import {taskMarketAbi} from '../../chain/generated/index.js'
import {runtimeIdString, sameRuntime} from '../../ml/backend/index.js'
import {ensureRegistered} from '../../protocol/ensureRegistered.js'
import {isRevert, toProtocolError} from '../../protocol/errors.js'
import {claimVerification, renewRandomness} from '../../protocol/marketActions.js'
import type {Task} from '../../protocol/types.js'
import {attemptOf} from './attemptOf.js'
import {stakesHeld, type VerificationPlan, type VerifierRun} from './types.js'

/**
 * Claims the verification of a committed proof it can judge, which reveals the sampling randomness. Undefined
 * when it passes the proof over (barred, another runtime, no pinned threshold), lost the race, or must wait
 * for a later block (the randomness is not ready, or expired and was renewed).
 */
export async function claimProofVerification(run: VerifierRun, task: Task, plan: VerificationPlan): Promise<Hex | undefined> {
  const {connection} = run
  const skip = await skipReason(run, task, plan)
  if (skip) {
    run.memory.passed.add(attemptOf(task))
    run.emit({type: 'skipped', taskId: task.id, reason: skip})
    return undefined
  }
  await ensureRegistered(connection, {role: 'verifier', tasks: stakesHeld})
  try {
    const claim = await claimVerification(connection, {taskId: task.id})
    run.emit({type: 'claimed', taskId: task.id, randomness: claim.randomness, gasUsed: claim.gasUsed})
    return claim.randomness
  } catch (error) {
    if (isRevert(error, 'RandomnessExpired')) {
      // Nobody claimed it within 256 blocks of the commit: move the draw to the next block, claim after it.
      await renewRandomness(connection, {taskId: task.id}).catch((renewError: unknown) => {
        if (!isRevert(renewError, 'RandomnessNotExpired', 'InvalidStatus', 'DeadlinePassed')) throw renewError
      })
      return undefined
    }
    if (isRevert(error, 'InvalidStatus', 'DeadlinePassed', 'RandomnessNotReady', 'VerifierBarred', 'SolverCannotVerify')) {
      if (error.errorName === 'RandomnessNotReady') return undefined // try again on a later block
      run.emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
      run.memory.passed.add(attemptOf(task))
      return undefined
    }
    throw error
  }
}

/** Why it passes this proof over, if it does. */
async function skipReason(run: VerifierRun, task: Task, {unchecked, manifestRuntime, thresholds}: VerificationPlan): Promise<string | undefined> {
  const {runtime} = run
  if (await isBarred(run, task.id)) return 'barred from this task (an earlier verdict of ours on it was overturned, or we accepted its forced error)'
  if (unchecked) return undefined
  if (run.mode === 'exact')
    return manifestRuntime && !sameRuntime(manifestRuntime, runtime) ? `proof runtime ${runtimeIdString(manifestRuntime)} differs from ${runtimeIdString(runtime)}` : undefined
  return manifestRuntime && !thresholds ? `no threshold pinned by the job for ${runtimeIdString(manifestRuntime)} + ${runtimeIdString(runtime)}` : undefined
}

/** A verifier whose verdict was overturned (or that accepted a revealed forced error) may not verify the task again. */
async function isBarred(run: VerifierRun, taskId: bigint): Promise<boolean> {
  const {connection} = run
  try {
    return await connection.publicClient.readContract({address: connection.contracts.market, abi: taskMarketAbi, functionName: 'isVerifierBarred', args: [taskId, run.me]})
  } catch (error) {
    throw toProtocolError('isVerifierBarred', error)
  }
}
