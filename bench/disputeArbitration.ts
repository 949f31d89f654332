import path from 'node:path'

import {recheckTask} from '../src/actors/recheckTask.js'
import {pinpointGameAbi} from '../src/chain/generated/index.js'
import {propagatingCorruption, trainJobWithOperatorCorruption} from '../src/dispute/corruptOperator.js'
import {createDisputeAgent} from '../src/dispute/createDisputeAgent.js'
import {stateAtStep} from '../src/dispute/stateHashes.js'
import {traceStep} from '../src/dispute/traceStep.js'
import {loadJobSpec} from '../src/ml/spec/index.js'
import {trainJob} from '../src/ml/train/trainJob.js'
import {connect, requireSigner} from '../src/protocol/connect.js'
import {commitAndOpen} from '../src/actors/commitAndOpen.js'
import {ensureRegistered} from '../src/protocol/ensureRegistered.js'
import {gameAddress} from '../src/protocol/gameAddress.js'
import {getDispute} from '../src/protocol/getDispute.js'
import {getTask} from '../src/protocol/getTask.js'
import {settleTask} from '../src/protocol/marketActions.js'
import {packageRoot} from '../src/util/packageRoot.js'
import {acceptedTask, mine} from '../test/helpers/acceptedTask.js'
import {mineTo} from '../test/helpers/mining.js'
import {startLocalDevnet} from '../test/helpers/localDevnet.js'

export type ArbitrationFigures = {kernel: string; steps: number; ops: number; rounds: number; gasUsed: bigint; seconds: number; outcome: string; element: number; corruptedElement: number}

/**
 * One pinpoint game played to on-chain arbitration by two in-process dispute agents on a real anvil: a
 * solver trained the smoke MLP with one Relu output corrupted (the test-only adversary), a lazy acceptance
 * let it through, and an honest whistleblower challenges it. Returns the rounds, the gas of every game
 * transaction and the wall time from the game's start to its resolution.
 */
export async function benchArbitration(kernel = 'Relu', step = 60): Promise<ArbitrationFigures> {
  const devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 4, whistleblowers: 1}, 0, {
    config: {forcedErrorBps: 0, challengeWindowBlocks: 20n, revealWindowBlocks: 2n, roundTimeoutBlocks: 6n, committeeTimeoutBlocks: 8n},
  })
  try {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, verifier, whistleblower] = await Promise.all([at(1), at(2), at(3), at(7)])
    await ensureRegistered(solver, {role: 'solver', tasks: 4})
    await ensureRegistered(verifier, {role: 'verifier', tasks: 2})
    await ensureRegistered(whistleblower, {role: 'whistleblower'})
    const spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    const honest = await trainJob({spec, store: solver.store})
    const segment = Math.floor(step / spec.proof.checkpointInterval)
    const honestTrace = await traceStep({spec, state: await stateAtStep({spec, store: solver.store, manifest: honest.manifest, segment, step})})
    const {corruption, element} = propagatingCorruption(honestTrace, kernel)
    const proof = await trainJobWithOperatorCorruption({spec, store: solver.store, corruption})
    const taskId = await acceptedTask({submitter, solver, verifier}, spec, proof)
    const task = await getTask(whistleblower, {taskId})
    const recheck = await recheckTask(whistleblower, task)
    if (!recheck.mismatch) throw new Error('the whistleblower found nothing wrong with the corrupted proof')
    await commitAndOpen(whistleblower, task, {segment: recheck.mismatch.segment, claimedEndHash: recheck.mismatch.actual}, {untilBlock: (block) => mineTo(submitter, block)})
    const revealEnd = (await getTask(submitter, {taskId})).revealEndBlock
    await mine(submitter, Number(revealEnd - (await submitter.publicClient.getBlockNumber())) + 1)
    const started = performance.now()
    const opened = await settleTask(submitter, {taskId})
    if (opened.outcome.type !== 'dispute-started') throw new Error(`settle: ${opened.outcome.type}, expected a dispute to start`)
    const disputeId = opened.outcome.disputeId
    const agents = [createDisputeAgent({connection: solver, stance: 'corrupt', corruption}), createDisputeAgent({connection: whistleblower})]
    let dispute = await getDispute(submitter, {disputeId})
    for (let pass = 0; dispute.phase !== 'Resolved'; pass++) {
      if (pass > 300) throw new Error('the dispute did not resolve')
      const before = await submitter.publicClient.getBlockNumber()
      for (const agent of agents) await agent.poll()
      dispute = await getDispute(submitter, {disputeId})
      if (dispute.phase !== 'Resolved' && (await submitter.publicClient.getBlockNumber()) === before) await mine(submitter, 1)
    }
    const seconds = (performance.now() - started) / 1000
    const logs = await submitter.publicClient.getContractEvents({address: await gameAddress(submitter), abi: pinpointGameAbi, fromBlock: devnet.deployBlock})
    const hashes = new Set(logs.filter((log) => (log.args as {id?: bigint}).id === disputeId).map((log) => log.transactionHash))
    let gasUsed = 0n
    for (const hash of hashes) if (hash) gasUsed += (await submitter.publicClient.getTransactionReceipt({hash})).gasUsed
    return {kernel, steps: spec.proof.checkpointInterval, ops: honestTrace.opCount, rounds: dispute.rounds, gasUsed, seconds, outcome: dispute.outcome, element: dispute.element, corruptedElement: element}
  } finally {
    await devnet.stop()
  }
}
