import type {Task} from '../protocol/types.js'
import {runRoleLoop} from './runRoleLoop.js'
import {claimProofVerification} from './verifier/claimProofVerification.js'
import {decideVerdict} from './verifier/decideVerdict.js'
import {pickCommittedProof} from './verifier/pickCommittedProof.js'
import {planVerification} from './verifier/planVerification.js'
import {postDecision} from './verifier/postDecision.js'
import {startVerifier} from './verifier/startVerifier.js'
import type {VerifiedTask, VerifierOptions, VerifierRun} from './verifier/types.js'

export {onchainScheduleProblem} from './verifier/onchainScheduleProblem.js'
export type {VerifiedTask, VerifierEvent, VerifierOptions} from './verifier/types.js'

/**
 * The verifier's role loop: once a proof is committed and a later block exists, claim the verification
 * (which reveals the sampling randomness), replay the sampled segments, post the verdict (a rejection names
 * the first failing segment and the hash its replay gave), serve on dispute committees, and pump settle on
 * its verified tasks after their reveal window. Each step is a file in src/actors/verifier/; what they share
 * is the `VerifierRun` they are given.
 */
export async function runVerifier(options: VerifierOptions): Promise<VerifiedTask[]> {
  // Register with the stakes it holds, start its committee duty.
  const run = await startVerifier(options)
  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.verifier === run.me && task.status === 'Verified',
    // Resume a held verification, else another solver's committed proof.
    pick: (tasks, now, mayTakeMore) => pickCommittedProof(run, tasks, now, mayTakeMore),
    // Claim, replay, post the verdict.
    work: (task, held) => verifyTask(run, task, held),
    // Serve on dispute committees.
    duties: () => run.agent.poll(),
    onSettled: (report) => run.emit({type: 'settle', ...report}),
    onTaskReverted: ({taskId, message}) => run.emit({type: 'warning', taskId, message}),
  })
}

/** One proof's verification: claim it (unless held from before), decide the verdict, post it. */
async function verifyTask(run: VerifierRun, task: Task, alreadyClaimed: boolean): Promise<VerifiedTask | undefined> {
  const plan = await planVerification(run, task)
  let randomness = task.randomness
  if (!alreadyClaimed) {
    const claimed = await claimProofVerification(run, task, plan)
    if (claimed === undefined) return undefined
    randomness = claimed
  }
  const started = performance.now()
  const decision = await decideVerdict(run, task, plan, randomness)
  if (!decision) return undefined
  return postDecision(run, task, decision, started)
}
