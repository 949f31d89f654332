import type {Hex} from 'viem'

import {skipsReplay} from '../../adversary/verifierStrategies.js'
import type {RuntimeId} from '../../ml/backend/index.js'
import type {JobSpec} from '../../ml/spec/index.js'
import type {ProofManifest, Thresholds} from '../../pol/index.js'
import {loadTaskSpec} from '../../protocol/loadTaskSpec.js'
import {pinnedThresholds} from '../../protocol/pinnedThresholds.js'
import type {Task} from '../../protocol/types.js'
import type {VerificationPlan, VerifierRun} from './types.js'

/** Reads what deciding on a committed proof needs: the task's spec, the proof's runtime and, in tolerance mode, the job's thresholds. */
export async function planVerification(run: VerifierRun, task: Task): Promise<VerificationPlan> {
  const spec = await loadTaskSpec(run.connection, task)
  const unchecked = skipsReplay(run.strategy, task.solver, run.colludeWith)
  const manifestRuntime = await runtimeOfProof(run, task.manifestHash)
  const thresholds = !unchecked && run.mode === 'tolerance' && manifestRuntime ? await jobThresholds(run, task, spec, manifestRuntime) : undefined
  return {spec, unchecked, manifestRuntime, thresholds}
}

/**
 * The thresholds of the profile the job pins for {proof runtime, this runtime}, if any: never a registry entry,
 * which anyone with the free verifier role can post. A pin the store cannot give is passed over, with a warning.
 */
async function jobThresholds(run: VerifierRun, task: Task, spec: JobSpec, proofRuntime: RuntimeId): Promise<Thresholds | undefined> {
  const {pinned, unreadable} = await pinnedThresholds(run.connection, {spec, runtimes: [proofRuntime, run.runtime]})
  for (const pin of unreadable) run.emit({type: 'warning', taskId: task.id, message: `pinned profile ${pin.profileHash} passed over: ${pin.reason}`})
  return pinned?.thresholds
}

/** The runtime a proof names, or undefined when its manifest is missing or malformed (verifyProof then rejects it). */
async function runtimeOfProof(run: VerifierRun, manifestHash: Hex): Promise<ProofManifest['runtime'] | undefined> {
  try {
    return (await run.connection.store.getJson<ProofManifest>(manifestHash)).runtime
  } catch {
    return undefined
  }
}
