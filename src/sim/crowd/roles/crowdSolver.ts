import {encodeAbiParameters, type Hex, keccak256} from 'viem'

import {merkleRoot} from '../../../ml/checkpoint/merkle.js'
import {claimTask} from '../../../protocol/claimTask.js'
import {commitProof} from '../../../protocol/commitProof.js'
import {sealHonest, secretHashOf} from '../../../protocol/forcedError.js'
import {sleep} from '../../../util/sleep.js'
import {type CrowdRoleFactory, pickRandom} from '../crowdContext.js'
import {checkpointsOf, syntheticStates} from '../syntheticWork.js'

/**
 * Claims a random open task, "trains" it for its declared time and commits the synthetic proof. A cheater's run
 * goes wrong after one random step (one segment fails a replay). One task at a time (capacity 1). Crowd solvers
 * never force errors: a crowd scenario sets forcedErrorBps to 0.
 */
export const crowdSolver: CrowdRoleFactory = (connection, member, context) => {
  const me = member.address.toLowerCase()
  const {board, crowd, stats} = context
  let attempts = 0
  return async () => {
    const open = [...board.tasks.values()].filter((task) => task.status === 'Submitted' && !task.rejected.has(me) && !context.claiming.has(task.id) && context.isCrowdTask(task))
    const task = pickRandom(open, context.random)
    if (!task) return
    const secret = keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'uint256'}, {type: 'uint256'}], [member.privateKey, task.id, BigInt(++attempts)]))
    let claimBlock: bigint
    context.claiming.add(task.id)
    try {
      claimBlock = (await claimTask(connection, {taskId: task.id, secretHash: secretHashOf(secret)})).receipt.blockNumber
    } catch {
      // Another solver claimed it first (or its claim window closed): try another next time.
      stats.lostClaims++
      return
    } finally {
      context.claiming.delete(task.id)
    }
    stats.claims++
    await sleep(task.maxSteps * crowd.stepMs, context.signal)
    // The forced-error seed is the hash of the block after the claim's: a commit needs it mined.
    await context.untilBlock(claimBlock + 2n)
    const cheating = member.strategy === 'cheater'
    const states = syntheticStates(task.specHash, task.maxSteps, cheating ? Math.floor(context.random() * task.maxSteps) : undefined)
    const checkpoints = checkpointsOf(states, crowd.checkpointInterval)
    const manifestHash = await connection.store.putJson({kind: 'synthetic-proof', specHash: task.specHash, checkpoints})
    const proofRoot = merkleRoot(checkpoints.map((checkpoint) => checkpoint.hash))
    await commitProof(connection, {
      taskId: task.id,
      proofRoot,
      manifestHash,
      checkpointCount: checkpoints.length,
      checkpointInterval: crowd.checkpointInterval,
      totalSteps: task.maxSteps,
      sealedHonest: sealHonest({honestRoot: proofRoot, honestManifestHash: manifestHash, secret: secret as Hex}),
    })
    stats.proofs++
    if (cheating) stats.wrongProofs++
  }
}
