import {type Hex, zeroHash} from 'viem'

import {forcedErrorProof} from '../../adversary/forcedError.js'
import {runtimeIdString} from '../../ml/backend/index.js'
import type {TrainResult} from '../../ml/train/index.js'
import {type ProofManifest, stackedProof} from '../../pol/index.js'
import {commitProof, sealHonest} from '../../protocol/marketActions.js'
import type {Task} from '../../protocol/types.js'
import {readSolverState, type SolverProof, writeSolverState} from '../solverState.js'
import {waitForBlock} from '../waitForBlock.js'
import {parentManifest} from './parentManifest.js'
import {tossCoin} from './tossCoin.js'
import type {SolvedTask, SolverRun} from './types.js'

/**
 * Tosses the forced-error coin (once the block after the claim exists) and commits: the proof itself, or,
 * when forced, a deliberately wrong one with this one sealed for the reveal.
 */
export async function commitTrainedProof(run: SolverRun, task: Task, result: TrainResult): Promise<SolvedTask | undefined> {
  const {connection, me} = run
  const state = (await readSolverState(connection.stateDir, me, task.id)) ?? {taskId: task.id, checkpoints: []}
  const honest: SolverProof = {proofRoot: result.proofRoot, manifestHash: result.manifestHash}
  // commitProof needs block.number > claimBlock + 1, and the coin needs the hash of block claimBlock + 1.
  if (!(await waitForBlock(connection, task.claimBlock + 2n, {pollMs: run.options.pollMs, signal: run.signal}))) return undefined
  const forced = await tossCoin(run, task, state.secret)
  if (forced === undefined) return undefined
  let published: {proofRoot: Hex; manifestHash: Hex; manifest: ProofManifest} = {...honest, manifest: result.manifest}
  if (forced && state.secret) published = await forcedErrorProof({store: connection.store, honest: result.manifest, secret: state.secret})
  await writeSolverState(connection.stateDir, me, {...state, honest, committed: {proofRoot: published.proofRoot, manifestHash: published.manifestHash}, forced})
  const checkpoints = published.manifest.checkpoints
  // The steps actually trained, counted from the range's start: fewer than the range after an early stop.
  const totalSteps = (checkpoints.at(-1)?.step ?? 0) - (checkpoints[0]?.step ?? 0)
  // A split task proves that its first checkpoint is its parent's last (docs/market.md, section 4).
  const parent = task.parentId === 0n ? undefined : await parentManifest(connection, task)
  const transaction = await commitProof(connection, {
    taskId: task.id,
    proofRoot: published.proofRoot,
    manifestHash: published.manifestHash,
    checkpointCount: checkpoints.length,
    checkpointInterval: published.manifest.checkpointInterval,
    totalSteps,
    sealedHonest: sealHonest({honestRoot: honest.proofRoot, honestManifestHash: honest.manifestHash, secret: state.secret ?? zeroHash}),
    ...(parent ? {start: stackedProof({parent, child: published.manifest})} : {}),
  })
  run.emit({
    type: 'committed',
    taskId: task.id,
    proofRoot: published.proofRoot,
    manifestHash: published.manifestHash,
    checkpoints: checkpoints.length,
    totalSteps,
    trainingSeconds: result.seconds,
    runtime: runtimeIdString(result.runtime),
    gasUsed: transaction.gasUsed,
    ...(run.strategy === 'honest' ? {} : {strategy: run.strategy}),
    ...(forced ? {sealedHonestRoot: honest.proofRoot} : {}),
  })
  return {taskId: task.id, proofRoot: published.proofRoot, manifestHash: published.manifestHash, checkpoints: checkpoints.length, totalSteps, trainingSeconds: result.seconds, forced}
}
