import assert from 'node:assert/strict'
import {randomBytes} from 'node:crypto'
import path from 'node:path'

import {keccak256, parseEther, parseEventLogs, toHex} from 'viem'

import {recheckTask} from '../actors/recheckTask.js'
import {forcedErrorProof} from '../adversary/forcedError.js'
import {pinpointGameAbi} from '../chain/generated/index.js'
import {loadJobSpec} from '../ml/spec/index.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {commitAndOpen} from '../actors/commitAndOpen.js'
import type {Dispute} from '../protocol/disputeTypes.js'
import {ensureRegistered, getStake} from '../protocol/ensureRegistered.js'
import {gameAddress} from '../protocol/gameAddress.js'
import {committeeOf, getDispute} from '../protocol/getDispute.js'
import {getTask} from '../protocol/getTask.js'
import {settleTask} from '../protocol/marketActions.js'
import {checkpointHash} from '../ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import {profileJob} from '../pol/profile/profileJob.js'
import {jsonReplacer} from '../ui/baseCommand.js'
import {packageRoot} from '../util/packageRoot.js'
import {acceptedTask as acceptTask, mine as mineBlocks} from '../../test/helpers/acceptedTask.js'
import {mineTo} from '../../test/helpers/mining.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {createDisputeAgent, type DisputeAgent, type DisputeAgentEvent, type DisputeAgentOptions} from './createDisputeAgent.js'
import {stateAtStep} from './stateHashes.js'
import {traceStep} from './traceStep.js'
import {propagatingCorruption, trainJobWithOperatorCorruption} from './corruptOperator.js'
import type {OperatorCorruption, StepTrace} from './types.js'

describe('createDisputeAgent: pinpoint disputes played to the end (real anvil, real contracts, real training)', function () {
  this.timeout(600_000)
  let devnet: LocalDevnet
  let spec: JobSpec
  let submitter: SignedConnection
  let solver: SignedConnection
  let verifier: SignedConnection
  let committee: SignedConnection[]
  let whistleblower: SignedConnection
  let honest: TrainResult

  before(async () => {
    // Roles: 1 submitter, 1 solver, 4 verifiers (the task's own, excluded from committees, and 3 members), 1 whistleblower.
    const roles = {submitters: 1, solvers: 1, verifiers: 4, whistleblowers: 1}
    devnet = await startLocalDevnet(roles, 0, {config: {forcedErrorBps: 0, challengeWindowBlocks: 20n, revealWindowBlocks: 2n, roundTimeoutBlocks: 6n, committeeTimeoutBlocks: 8n}})
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    ;[submitter, solver, verifier] = await Promise.all([at(1), at(2), at(3)])
    committee = await Promise.all([at(4), at(5), at(6)])
    whistleblower = await at(7)
    await ensureRegistered(solver, {role: 'solver', tasks: 4})
    for (const member of [verifier, ...committee]) await ensureRegistered(member, {role: 'verifier', tasks: 2})
    spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    honest = await trainJob({spec, store: solver.store})
  })
  after(() => devnet?.stop())

  const mine = (blocks = 1) => mineBlocks(submitter, blocks)
  const blockNumber = () => submitter.publicClient.getBlockNumber()

  const acceptedTask = (proof: Pick<TrainResult, 'proofRoot' | 'manifestHash' | 'manifest'>) => acceptTask({submitter, solver, verifier}, spec, proof)

  /** Past the reveal window, settle opens the queued challenge's game. */
  async function openDispute(taskId: bigint): Promise<bigint> {
    const task = await getTask(submitter, {taskId})
    const now = await blockNumber()
    if (now <= task.revealEndBlock) await mine(Number(task.revealEndBlock - now) + 1)
    const settled = await settleTask(submitter, {taskId})
    assert.equal(settled.outcome.type, 'dispute-started')
    return (settled.outcome as {disputeId: bigint}).disputeId
  }

  /** Polls every agent until the dispute resolves; mines a block whenever a whole pass moved nothing (a stall). */
  async function playOut(disputeId: bigint, agents: DisputeAgent[]): Promise<Dispute> {
    for (let pass = 0; pass < 300; pass++) {
      const before = await blockNumber()
      for (const agent of agents) await agent.poll()
      const dispute = await getDispute(submitter, {disputeId})
      const after = await blockNumber()
      trail.push({at: elapsed(), pass, before, after, phase: dispute.phase, deadline: dispute.deadline})
      if (dispute.phase === 'Resolved') {
        trail.push({outcome: dispute.outcome, question: dispute.question, step: dispute.step, committee: await committeeOf(submitter, {disputeId})})
        // One more look, so that every agent sees the outcome (the last vote or timeout may have been another's).
        for (const agent of agents) await agent.poll()
        return dispute
      }
      if (after === before) await mine(1)
    }
    throw new Error(`dispute ${disputeId} did not resolve`)
  }

  /**
   * Every pass of playOut and every agent's event in the running test, printed when it fails. This trail found why
   * these disputes resolved Void in 3 of 7 runs: every reader saw a cached head while blocks were mined past the
   * committee's deadline (src/chain/clients.ts, cacheTime). It stays so that a failure says where the game ended.
   */
  let trail: object[] = []
  let testStart = 0
  const elapsed = () => Date.now() - testStart
  beforeEach(() => {
    trail = []
    testStart = Date.now()
  })
  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return
    console.error(`  the failed test's dispute trail:\n${trail.map((entry) => `    ${JSON.stringify(entry, jsonReplacer)}`).join('\n')}`)
  })
  const names = () => new Map([[solver, 'solver'], [whistleblower, 'whistleblower'], ...committee.map((member, k) => [member, `member-${k + 1}`] as const)])

  function agentFor(connection: SignedConnection, options: Omit<DisputeAgentOptions, 'connection'> = {}, log?: DisputeAgentEvent[]): DisputeAgent {
    const agent = names().get(connection) ?? connection.account.address
    return createDisputeAgent({
      connection,
      ...options,
      onEvent: (event) => {
        trail.push({at: elapsed(), agent, ...event})
        log?.push(event)
      },
    })
  }

  const committeeAgents = () => committee.map((member) => agentFor(member))

  /** The honest whistleblower re-checks the task and challenges the first segment that does not replay. */
  async function honestChallenge(taskId: bigint): Promise<{segment: number}> {
    const task = await getTask(whistleblower, {taskId})
    const recheck = await recheckTask(whistleblower, task)
    assert.ok(recheck.mismatch, 'the whistleblower found nothing wrong with a corrupted proof')
    await ensureRegistered(whistleblower, {role: 'whistleblower'})
    await commitAndOpen(whistleblower, task, {segment: recheck.mismatch.segment, claimedEndHash: recheck.mismatch.actual}, {untilBlock: (block) => mineTo(submitter, block)})
    return {segment: recheck.mismatch.segment}
  }

  /** A proof trained with one operator output corrupted at `step`, and the element number it corrupts. */
  async function corruptedProof(kernel: string, step: number): Promise<{proof: TrainResult; corruption: OperatorCorruption; element: number}> {
    const honestTrace = await traceStep({spec, state: await stateAtStep({spec, store: solver.store, manifest: honest.manifest, segment: Math.floor(step / spec.proof.checkpointInterval), step})})
    const {corruption, element} = propagatingCorruption(honestTrace, kernel)
    const proof = await trainJobWithOperatorCorruption({spec, store: solver.store, corruption})
    return {proof, corruption, element}
  }

  it('an honest prover beats a griefer: made-up hashes narrow to the first step, the committee rejects its graph, its deposit is slashed', async () => {
    const taskId = await acceptedTask(honest)
    await ensureRegistered(whistleblower, {role: 'whistleblower'})
    const before = {solver: await getStake(solver, {address: solver.account.address}), griefer: await getStake(whistleblower, {address: whistleblower.account.address})}
    await commitAndOpen(whistleblower, await getTask(whistleblower, {taskId}), {segment: 2, claimedEndHash: keccak256(toHex('made up'))}, {untilBlock: (block) => mineTo(submitter, block)})
    const disputeId = await openDispute(taskId)

    const proverLog: DisputeAgentEvent[] = []
    const dispute = await playOut(disputeId, [agentFor(solver, {}, proverLog), agentFor(whistleblower, {stance: 'griefer'}), ...committeeAgents()])
    assert.equal(dispute.outcome, 'ProverWon')
    assert.equal(dispute.question, 'Graph')
    assert.equal(dispute.step, BigInt(2 * spec.proof.checkpointInterval), 'every made-up state differs, so the dispute narrows to the first step of the segment')
    assert.deepEqual((await committeeOf(submitter, {disputeId})).votes, ['prover', 'prover', 'prover'])
    assert.ok(proverLog.some((event) => event.type === 'resolved' && event.won === true))

    await settleTask(submitter, {taskId}) // applies the outcome: the deposit is slashed, winner the solver
    await settleTask(submitter, {taskId}) // no challenge left: the task settles accepted
    assert.equal((await getTask(submitter, {taskId})).status, 'Settled')
    const after = {solver: await getStake(solver, {address: solver.account.address}), griefer: await getStake(whistleblower, {address: whistleblower.account.address})}
    const deposit = parseEther('0.2')
    assert.equal(after.griefer.free + after.griefer.locked, before.griefer.free + before.griefer.locked - deposit, 'the griefer lost exactly its deposit')
    // its stake for the task unlocked, plus the winner's share (slashWinnerBps 50%) of the deposit
    assert.equal(after.solver.free + after.solver.locked - (before.solver.free + before.solver.locked), deposit / 2n)
  })

  it('a staller loses by timeout: the prover answers one round of a challenge against its corrupted proof, then stops', async () => {
    const {proof} = await corruptedProof('Relu', 60)
    const taskId = await acceptedTask(proof)
    await honestChallenge(taskId)
    const disputeId = await openDispute(taskId)
    const stallerLog: DisputeAgentEvent[] = []
    const dispute = await playOut(disputeId, [agentFor(solver, {stance: 'staller', stallAfterRounds: 1}, stallerLog), agentFor(whistleblower), ...committeeAgents()])
    assert.equal(dispute.outcome, 'ChallengerWon')
    assert.equal(dispute.phase, 'Resolved')
    assert.equal(stallerLog.filter((event) => event.type === 'move').length, 1, 'the staller made exactly one move')
    assert.ok(stallerLog.some((event) => event.type === 'stalled'))
    const resolved = parseEventLogs({abi: pinpointGameAbi, logs: await timeoutLogs(disputeId), eventName: 'DisputeResolved'})
    assert.equal(resolved[0]?.args.reason, 0, 'resolved by Timeout')
  })

  it('a Relu corrupted in training is pinpointed to exactly that operator and the contract decides it on chain', async () => {
    const {proof, corruption, element} = await corruptedProof('Relu', 60)
    const taskId = await acceptedTask(proof)
    await ensureRegistered(whistleblower, {role: 'whistleblower'})
    const before = await getStake(whistleblower, {address: whistleblower.account.address})
    const {segment} = await honestChallenge(taskId)
    assert.equal(segment, 1, 'the first segment an honest replay rejects holds the corrupted step')
    const disputeId = await openDispute(taskId)
    const proverLog: DisputeAgentEvent[] = []
    const challengerLog: DisputeAgentEvent[] = []
    const dispute = await playOut(disputeId, [agentFor(solver, {stance: 'corrupt', corruption}, proverLog), agentFor(whistleblower, {}, challengerLog), ...committeeAgents()])
    assert.equal(dispute.outcome, 'ChallengerWon')
    assert.equal(dispute.step, BigInt(corruption.step), 'the steps narrowed to the corrupted step')
    assert.equal(dispute.element, element, 'the operators narrowed to the corrupted Relu')
    assert.equal(dispute.question, 'None', 'no committee was needed')
    assert.ok([...proverLog, ...challengerLog].some((event) => event.type === 'move' && event.move === 'arbitrate'), 'the contract re-executed the Relu')
    assert.deepEqual((await committeeOf(submitter, {disputeId})).members, [])

    await settleTask(submitter, {taskId}) // ChallengerWon: solver and verifier slashed, the whistleblower wins, the task reopens
    const task = await getTask(submitter, {taskId})
    assert.equal(task.status, 'Submitted')
    const after = await getStake(whistleblower, {address: whistleblower.account.address})
    // winner share (50%) of the solver's 1 ether and the verifier's 0.5 ether, and the deposit back
    assert.equal(after.free + after.locked - (before.free + before.locked), parseEther('0.75'))
    assert.equal(after.locked, before.locked)
  })

  it('a prover that replays honestly but stands behind a wrong end hash loses at the last step: the committee decides the state assembly', async () => {
    const wrong = await forcedErrorProof({store: solver.store, honest: honest.manifest, secret: toHex(randomBytes(32))})
    const taskId = await acceptedTask(wrong)
    const {segment} = await honestChallenge(taskId)
    assert.equal(segment, 0)
    const disputeId = await openDispute(taskId)
    const dispute = await playOut(disputeId, [agentFor(solver, {stance: 'defend'}), agentFor(whistleblower), ...committeeAgents()])
    assert.equal(dispute.outcome, 'ChallengerWon')
    assert.equal(dispute.question, 'StateAssembly')
    assert.equal(dispute.step, BigInt(spec.proof.checkpointInterval - 1), 'every state but the committed end agreed: the last step is disputed')
    assert.equal(dispute.proverNext, wrong.checkpoints[1]!.hash)
    assert.equal(dispute.element, dispute.proverHeader.opCount + 1, 'every operator output agreed')
    assert.deepEqual((await committeeOf(submitter, {disputeId})).votes, ['challenger', 'challenger', 'challenger'])
  })

  /**
   * The job pinning a cpu + wasm profile of itself (thresholds from two other seeds), and a proof of it trained on
   * cpu: a runtime whose checkpoints no wasm replay reproduces bit for bit. Made once, for both tests that use it.
   */
  let cpuTrained: Promise<{pinned: JobSpec; proof: TrainResult}> | undefined
  const cpuTrainedProof = () => (cpuTrained ??= makeCpuTrainedProof())
  async function makeCpuTrainedProof(): Promise<{pinned: JobSpec; proof: TrainResult}> {
    const other: JobSpec = {...spec, training: {...spec.training, seed: spec.training.seed + 1000}}
    const profile = await profileJob({spec: other, runtimes: ['cpu', 'wasm'], seeds: 2})
    const pinned: JobSpec = {...spec, verification: {...spec.verification, profiles: [await solver.store.putJson(profile)]}}
    return {pinned, proof: await trainJob({spec: pinned, store: solver.store, backend: 'cpu'})}
  }

  it('a cpu-trained proof within the job pinned thresholds wins a dispute on wasm: the committee judges the committed end by the thresholds', async () => {
    const {pinned, proof} = await cpuTrainedProof()
    assert.notEqual(proof.manifest.runtime.backend, 'wasm')
    const taskId = await acceptTask({submitter, solver, verifier}, pinned, proof)
    // a whistleblower that replays on wasm, bit for bit: the honest cpu proof looks wrong to it
    const wasmEnd = await stateAtStep({spec: pinned, store: whistleblower.store, manifest: proof.manifest, segment: 0, step: spec.proof.checkpointInterval})
    const task = await getTask(whistleblower, {taskId})
    await ensureRegistered(whistleblower, {role: 'whistleblower'})
    await commitAndOpen(whistleblower, task, {segment: 0, claimedEndHash: checkpointHash(encodeCheckpoint(wasmEnd))}, {untilBlock: (block) => mineTo(submitter, block)})
    const disputeId = await openDispute(taskId)
    const dispute = await playOut(disputeId, [agentFor(solver), agentFor(whistleblower), ...committeeAgents()])
    assert.equal(dispute.outcome, 'ProverWon')
    assert.equal(dispute.question, 'StateAssembly')
    assert.equal(dispute.step, BigInt(spec.proof.checkpointInterval - 1), 'both replayed on wasm and agreed on every state up to the last step')
    assert.equal(dispute.proverNext, proof.checkpoints[1]!.hash)
    assert.deepEqual((await committeeOf(submitter, {disputeId})).votes, ['prover', 'prover', 'prover'])
  })

  it('a wrong cpu-trained proof still loses: its end is outside the pinned thresholds of the wasm replay', async () => {
    const {pinned, proof} = await cpuTrainedProof()
    const wrong = await forcedErrorProof({store: solver.store, honest: proof.manifest, secret: toHex(randomBytes(32))})
    const taskId = await acceptTask({submitter, solver, verifier}, pinned, wrong)
    // this whistleblower re-checks on the proof's runtime (cpu) and claims cpu's end, not wasm's: still right
    await honestChallenge(taskId)
    const disputeId = await openDispute(taskId)
    const dispute = await playOut(disputeId, [agentFor(solver, {stance: 'defend'}), agentFor(whistleblower), ...committeeAgents()])
    const seats = await committeeOf(submitter, {disputeId})
    assert.equal(dispute.outcome, 'ChallengerWon')
    assert.equal(dispute.question, 'StateAssembly')
    assert.equal(dispute.proverNext, wrong.checkpoints[1]!.hash)
    assert.deepEqual(seats.votes, ['challenger', 'challenger', 'challenger'])
  })

  it('a MatMul corrupted in training is pinpointed to exactly that operator and a committee of 3 decides it', async () => {
    const {proof, corruption, element} = await corruptedProof('BatchMatMul', 110)
    const taskId = await acceptedTask(proof)
    const {segment} = await honestChallenge(taskId)
    assert.equal(segment, 2)
    const disputeId = await openDispute(taskId)
    const dispute = await playOut(disputeId, [agentFor(solver, {stance: 'corrupt', corruption}), agentFor(whistleblower), ...committeeAgents()])
    assert.equal(dispute.outcome, 'ChallengerWon')
    assert.equal(dispute.step, BigInt(corruption.step))
    assert.equal(dispute.element, element, 'the operators narrowed to the corrupted BatchMatMul')
    assert.equal(dispute.question, 'Operator')
    const seats = await committeeOf(submitter, {disputeId})
    assert.equal(seats.members.length, 3)
    assert.deepEqual(seats.votes, ['challenger', 'challenger', 'challenger'])
    assert.ok(!seats.members.some((member) => member.toLowerCase() === verifier.account.address.toLowerCase()), "the task's verifier is never drawn")
  })

  /** The game's logs about one dispute (its id is the first indexed topic of every dispute event). */
  async function timeoutLogs(disputeId: bigint) {
    const logs = await submitter.publicClient.getLogs({address: await gameAddress(submitter), fromBlock: 0n, toBlock: 'latest'})
    return logs.filter((log) => log.topics[1] === toHex(disputeId, {size: 32}))
  }
})
