import {randomBytes} from 'node:crypto'

import {keccak256, toHex} from 'viem'

import {mine} from './mining.js'

import type {JobSpec} from '../../src/ml/spec/schema.js'
import type {TrainResult} from '../../src/ml/train/trainJob.js'
import type {SignedConnection} from '../../src/protocol/connect.js'
import {ensureRegistered} from '../../src/protocol/ensureRegistered.js'
import {claimTask, claimVerification, commitProof, postVerdict, sealHonest, secretHashOf} from '../../src/protocol/marketActions.js'
import {getMarketParams, getOffer, setOffer} from '../../src/protocol/solverBook.js'
import {submitTask} from '../../src/protocol/submitTask.js'

export {mine} from './mining.js'

/** The most tasks one solver of a test holds at once through {@link acceptedTask} (each stakes one solverStake). */
const ACCEPTED_TASKS_AT_ONCE = 16

/**
 * Drives one task to an accepted verdict with `proof` committed, without actor loops: submit, claim (a fresh
 * secret), commit, and a verifier that accepts without replaying (so a wrong proof can be accepted and then
 * challenged). Needs forcedErrorBps 0 (the committed proof is sealed as the honest one).
 */
export async function acceptedTask(
  parties: {submitter: SignedConnection; solver: SignedConnection; verifier: SignedConnection},
  spec: JobSpec,
  proof: Pick<TrainResult, 'proofRoot' | 'manifestHash' | 'manifest'>,
): Promise<bigint> {
  const {submitter, solver, verifier} = parties
  const {taskId} = await submitTask(submitter, {spec})
  // A claim needs a listed offer (docs/market.md, section 3), backed by a solverStake per task it lists: at the
  // floor, with room for every task a test holds at once.
  await ensureRegistered(solver, {role: 'solver', tasks: ACCEPTED_TASKS_AT_ONCE})
  await ensureRegistered(verifier, {role: 'verifier'})
  if (!(await getOffer(solver, {solver: solver.account.address})).listed) {
    await setOffer(solver, {ask: (await getMarketParams(solver)).priceFloor, capacity: ACCEPTED_TASKS_AT_ONCE})
  }
  const secret = toHex(randomBytes(32))
  await claimTask(solver, {taskId, secretHash: secretHashOf(secret)})
  await mine(solver, 2) // the forced-error seed is the hash of the block after the claim
  await commitProof(solver, {
    taskId,
    proofRoot: proof.proofRoot,
    manifestHash: proof.manifestHash,
    checkpointCount: proof.manifest.checkpoints.length,
    checkpointInterval: spec.proof.checkpointInterval,
    totalSteps: spec.training.steps,
    sealedHonest: sealHonest({honestRoot: proof.proofRoot, honestManifestHash: proof.manifestHash, secret}),
  })
  await mine(solver, 2) // the verification randomness is the hash of the block after the commit
  await claimVerification(verifier, {taskId})
  await postVerdict(verifier, {taskId, accepted: true, reportHash: keccak256(toHex('accepted unchecked')), distance: 0n, segment: 0, replayHash: `0x${'00'.repeat(32)}`})
  return taskId
}
