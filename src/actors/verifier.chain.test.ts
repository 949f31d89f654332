import assert from 'node:assert/strict'
import path from 'node:path'

import {type Hex, parseEther, zeroHash} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {selectBackend} from '../ml/backend/index.js'

import {loadJobSpec} from '../ml/spec/index.js'
import {checkpointSchedule} from '../ml/train/index.js'
import {profileJob, type ProofManifest, replaySegment, selectSegments} from '../pol/index.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {getStake} from '../protocol/ensureRegistered.js'
import {getTask} from '../protocol/getTask.js'
import {postProfile} from '../protocol/postProfile.js'
import {submitTask} from '../protocol/submitTask.js'
import {packageRoot} from '../util/packageRoot.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {startMiner} from '../../test/helpers/mining.js'
import {followTask} from './followTask.js'
import {runSolver} from './solver.js'
import {onchainScheduleProblem, runVerifier, type VerifierEvent} from './verifier.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')

describe('runVerifier in tolerance mode (real anvil, cpu training, wasm replay)', function () {
  this.timeout(180_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let solver: SignedConnection
  let verifier: SignedConnection
  let stopMiner: () => Promise<void>

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1}, 0, {config: {forcedErrorBps: 0}})
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    ;[submitter, solver, verifier] = await Promise.all([at(1), at(2), at(3)])
    stopMiner = startMiner(submitter, 250)
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  /** The tasks these tests leave open at once (committed, verified): the solver's offer must hold them all. */
  const tasksHeld = 3

  /** Runs the wasm tolerance-mode verifier until it skips `taskId`; its events about that task. */
  async function verifyUntilSkipped(taskId: bigint): Promise<VerifierEvent[]> {
    const events: VerifierEvent[] = []
    const stop = new AbortController()
    const onEvent = (event: VerifierEvent) => {
      if (!('taskId' in event) || event.taskId !== taskId) return
      events.push(event)
      if (event.type === 'skipped') stop.abort()
    }
    await runVerifier({connection: verifier, backend: 'wasm', mode: 'tolerance', loop: true, signal: stop.signal, onEvent})
    return events
  }

  it('skips a cpu proof whose job pins no profile, though one is posted, and accepts one whose job pins it, within its thresholds', async () => {
    const spec = await loadJobSpec(smokeMlp)
    // Profile on another seed (so the thresholds are not fitted to the proofs) and post it before any job.
    const profile = await profileJob({spec: {...spec, training: {...spec.training, seed: spec.training.seed + 1}}, runtimes: ['cpu', 'wasm'], segments: 2})
    const {profileHash} = await postProfile(verifier, {spec, profile})

    const unpinned = await submitTask(submitter, {spec})
    await runSolver({connection: solver, backend: 'cpu', loop: false, capacity: tasksHeld})
    assert.equal((await getTask(verifier, {taskId: unpinned.taskId})).status, 'Committed')
    // The posting binds no job that did not pin it: nothing to judge this one's distances against.
    const skip = (await verifyUntilSkipped(unpinned.taskId)).find((event) => event.type === 'skipped')
    assert.match(skip?.type === 'skipped' ? skip.reason : '', /^no threshold pinned by the job for cpu.* \+ wasm/)
    assert.equal((await getTask(verifier, {taskId: unpinned.taskId})).status, 'Committed')

    const pinned = await submitTask(submitter, {spec: {...spec, verification: {...spec.verification, profiles: [profileHash]}}})
    await runSolver({connection: solver, backend: 'cpu', loop: false, capacity: tasksHeld})
    const [verified] = await runVerifier({connection: verifier, backend: 'wasm', mode: 'tolerance', loop: false})
    assert.equal(verified?.taskId, pinned.taskId)
    assert.equal(verified.accepted, true)
    const task = await getTask(verifier, {taskId: pinned.taskId})
    assert.equal(task.status, 'Verified')
    assert.equal(task.accepted, true)
    assert.equal(task.rejectSegment, 0)
    assert.equal(task.rejectReplayHash, zeroHash)
    assert.ok(task.distance > 0n, 'cpu and wasm replays matched bit for bit: nothing was tolerated')
    assert.equal((await getTask(verifier, {taskId: unpinned.taskId})).status, 'Committed', 'the unpinned job is still left to others')
  })

  it('warns of a pinned profile the store cannot give, and skips the job as one that pins none', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const lost: Hex = `0x${'00'.repeat(31)}02`
    const {taskId} = await submitTask(submitter, {spec: {...spec, verification: {...spec.verification, profiles: [lost]}}})
    await runSolver({connection: solver, backend: 'cpu', loop: false, capacity: tasksHeld})
    const events = await verifyUntilSkipped(taskId)
    const warning = events.find((event) => event.type === 'warning')
    assert.match(warning?.type === 'warning' ? warning.message : '', new RegExp(`^pinned profile ${lost} passed over: `))
    const skip = events.find((event) => event.type === 'skipped')
    assert.match(skip?.type === 'skipped' ? skip.reason : '', /^no threshold pinned by the job/)
    assert.equal((await getTask(verifier, {taskId})).status, 'Committed')
  })
})

describe('verifier strategies and rejection claims (real anvil, real training and replay)', function () {
  this.timeout(240_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let cheater: SignedConnection
  let honestSolver: SignedConnection
  let honestVerifier: SignedConnection
  let lazyVerifier: SignedConnection
  let colludingVerifier: SignedConnection
  let stopMiner: () => Promise<void>

  before(async () => {
    // startLocalDevnet freezes the price: this block's tasks stay live across tests, and a moving price passed
    // smoke-mlp's maxPrice before a later solver reached the third test's task (a clean-clone run timed out so).
    devnet = await startLocalDevnet({submitters: 1, solvers: 2, verifiers: 3}, 0, {config: {forcedErrorBps: 0}})
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    ;[submitter, cheater, honestSolver, honestVerifier, lazyVerifier, colludingVerifier] = await Promise.all([at(1), at(2), at(3), at(4), at(5), at(6)])
    stopMiner = startMiner(submitter, 250)
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  /**
   * Submits smoke-mlp and has `solver` commit a proof for an open task (a cheater that does not dispute). The
   * task it takes may be an earlier one a rejection reopened, so the id comes from the solver.
   */
  async function committedTask(solver: SignedConnection, strategy: 'honest' | 'skip-steps'): Promise<bigint> {
    await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const [solved] = await runSolver({connection: solver, backend: 'wasm', loop: false, strategy, disputeStance: 'honest'})
    assert.ok(solved)
    assert.equal((await getTask(solver, {taskId: solved.taskId})).status, 'Committed')
    return solved.taskId
  }

  it('rejects a cheat naming the first failing sampled segment and the end hash its replay gave', async () => {
    const taskId = await committedTask(cheater, 'skip-steps')
    const events: VerifierEvent[] = []
    const [verified] = await runVerifier({connection: honestVerifier, backend: 'wasm', loop: false, onEvent: (event) => events.push(event)})
    assert.equal(verified?.taskId, taskId)
    assert.equal(verified.accepted, false)

    const task = await getTask(honestVerifier, {taskId})
    assert.equal(task.status, 'Verified')
    assert.equal(task.accepted, false)
    // skip-steps fakes every segment: the first one replayed (the lowest sampled) fails.
    const spec = await loadJobSpec(smokeMlp)
    const segmentCount = checkpointSchedule(spec).length - 1
    const sampled = selectSegments({randomness: task.randomness, segmentCount, count: spec.verification.segments})
    assert.equal(task.rejectSegment, sampled[0])
    assert.equal(verified.segment, task.rejectSegment)
    assert.equal(task.rejectReplayHash, verified.replayHash)
    // The claim is checkable by anyone: an independent replay of that segment gives that hash, not the committed end.
    const manifest = await honestVerifier.store.getJson<ProofManifest>(task.manifestHash)
    const replay = await replaySegment({spec, store: honestVerifier.store, manifest, segment: task.rejectSegment})
    assert.equal(replay.actual, task.rejectReplayHash)
    assert.notEqual(task.rejectReplayHash, manifest.checkpoints[task.rejectSegment + 1]?.hash)
    assert.deepEqual(
      events.flatMap((event) => (event.type === 'segment' ? [[event.segment, event.match]] : [])),
      [[task.rejectSegment, false]],
    )
  })

  it('lazy: accepts without replaying anything, and its report says so', async () => {
    const taskId = await committedTask(honestSolver, 'honest')
    const events: VerifierEvent[] = []
    const [verified] = await runVerifier({connection: lazyVerifier, backend: 'wasm', strategy: 'lazy', loop: false, onEvent: (event) => events.push(event)})
    assert.equal(verified?.taskId, taskId)
    assert.deepEqual({accepted: verified.accepted, replayed: verified.replayed}, {accepted: true, replayed: false})
    assert.equal(events.some((event) => event.type === 'segment'), false, 'a lazy verifier replayed a segment')
    const task = await getTask(lazyVerifier, {taskId})
    assert.deepEqual({status: task.status, accepted: task.accepted, distance: task.distance}, {status: 'Verified', accepted: true, distance: 0n})
    const report = await lazyVerifier.store.getJson<{replayed: boolean; strategy: string; segments: unknown[]}>(task.reportHash)
    assert.deepEqual({replayed: report.replayed, strategy: report.strategy, segments: report.segments}, {replayed: false, strategy: 'lazy', segments: []})
  })

  it("colluding: waves its partner's cheat through unchecked, and verifies everyone else's proofs by replay", async () => {
    const partnerTask = await committedTask(cheater, 'skip-steps')
    const colluding = {connection: colludingVerifier, backend: 'wasm' as const, strategy: 'colluding' as const, colludeWith: [cheater.account.address], loop: false}
    const partnerEvents: VerifierEvent[] = []
    const [waved] = await runVerifier({...colluding, onEvent: (event) => partnerEvents.push(event)})
    assert.equal(waved?.taskId, partnerTask)
    assert.deepEqual({accepted: waved.accepted, replayed: waved.replayed}, {accepted: true, replayed: false})
    assert.equal(partnerEvents.some((event) => event.type === 'segment'), false)

    const otherTask = await committedTask(honestSolver, 'honest')
    const otherEvents: VerifierEvent[] = []
    const [checked] = await runVerifier({...colluding, onEvent: (event) => otherEvents.push(event)})
    assert.equal(checked?.taskId, otherTask)
    assert.deepEqual({accepted: checked.accepted, replayed: checked.replayed}, {accepted: true, replayed: true})
    assert.equal(otherEvents.filter((event) => event.type === 'segment').length, 2)
  })
})

describe('onchainScheduleProblem', () => {
  it("names the first on-chain schedule field that is not the task's", async () => {
    const spec = await loadJobSpec(smokeMlp)
    const good = {checkpointInterval: 50n, totalSteps: 200n, checkpointCount: 5}
    assert.equal(onchainScheduleProblem(good, spec), undefined)
    assert.equal(onchainScheduleProblem({...good, checkpointInterval: 40n}, spec), "on-chain checkpointInterval: expected 50 (the job's), got 40")
    assert.equal(onchainScheduleProblem({...good, totalSteps: 199n}, spec), "on-chain totalSteps: expected 200 (the task's steps from 0), got 199")
    assert.equal(onchainScheduleProblem({...good, checkpointCount: 6}, spec), 'on-chain checkpointCount: expected 5 (for 200 steps), got 6')
  })

  it("counts a split task's steps from its range start, and an early stop's up to the proof's last checkpoint", async () => {
    const job = await loadJobSpec(smokeMlp)
    // smoke-mlp: 200 steps, interval 50; task 1 of 2 trains steps 100-200
    const second = {...job, split: {tasks: 2, index: 1}}
    const good = {checkpointInterval: 50n, totalSteps: 100n, checkpointCount: 3}
    assert.equal(onchainScheduleProblem(good, second), undefined)
    assert.equal(onchainScheduleProblem({...good, totalSteps: 200n, checkpointCount: 5}, second), "on-chain totalSteps: expected 100 (the task's steps from 100), got 200")
    const stopping = {...second, training: {...second.training, stopAt: {testAccuracy: 0.9}}}
    const stoppedAt150 = {checkpoints: [{step: 100, hash: zeroHash}, {step: 150, hash: zeroHash}]}
    assert.equal(onchainScheduleProblem({...good, totalSteps: 50n, checkpointCount: 2}, stopping, stoppedAt150), undefined)
    assert.equal(onchainScheduleProblem(good, stopping, stoppedAt150), "on-chain totalSteps: expected 50 (the proof's steps from 100), got 100")
    assert.equal(onchainScheduleProblem({...good, totalSteps: 50n}, stopping, stoppedAt150), 'on-chain checkpointCount: expected 2 (for 50 steps), got 3')
    assert.equal(onchainScheduleProblem({...good, totalSteps: 50n, checkpointCount: 2}, stopping), undefined, 'without the manifest any checkpoint of the range may end it')
    assert.equal(onchainScheduleProblem({...good, totalSteps: 70n, checkpointCount: 3}, stopping), "on-chain totalSteps: expected one of 50, 100 (the task's steps from 100), got 70")
  })
})

describe('a lazy verifier meets a forced error (real anvil, forcedErrorBps 10000)', function () {
  this.timeout(240_000)
  let devnet: LocalDevnet
  let stopMiner: () => Promise<void>

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 2}, 0, {config: {forcedErrorBps: 10_000}})
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  it('accepts the deliberately wrong proof unchecked, is slashed and barred when the solver reveals, and an honest verifier delivers', async () => {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, lazy, honest] = await Promise.all([at(1), at(2), at(3), at(4)])
    stopMiner = startMiner(submitter, 500)
    await selectBackend('wasm')
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})

    const stop = new AbortController()
    const lazyEvents: VerifierEvent[] = []
    const actors = Promise.all([
      runSolver({connection: solver, backend: 'wasm', loop: true, pollMs: 200, signal: stop.signal}),
      runVerifier({connection: lazy, backend: 'wasm', strategy: 'lazy', loop: true, pollMs: 200, signal: stop.signal, onEvent: (event) => lazyEvents.push(event)}),
      runVerifier({connection: honest, backend: 'wasm', loop: true, pollMs: 200, claimDelayMs: 3000, signal: stop.signal}),
    ])
    let final
    try {
      final = await followTask({connection: submitter, taskId, pollMs: 200})
    } finally {
      stop.abort()
      await actors
    }

    const verdict = lazyEvents.find((event) => event.type === 'verdict')
    assert.ok(verdict?.type === 'verdict' && verdict.accepted && !verdict.replayed)
    assert.deepEqual({status: final.status, accepted: final.accepted, forcedRevealed: final.forcedRevealed, verifier: final.verifier}, {
      status: 'Settled',
      accepted: true,
      forcedRevealed: true,
      verifier: honest.account.address,
    })
    // Slashed: its locked verifier stake is gone (no catcher, so no winner share), and it may not verify the task again.
    const [slash] = await lazy.publicClient.getContractEvents({address: lazy.contracts.market, abi: taskMarketAbi, eventName: 'StakeSlashed', args: {account: lazy.account.address}, fromBlock: devnet.deployBlock})
    assert.equal(slash?.args.amount, parseEther('0.5'))
    const stake = await getStake(lazy, {address: lazy.account.address})
    assert.deepEqual({free: stake.free, locked: stake.locked}, {free: parseEther('0.5'), locked: 0n}, 'one of its two verifier stakes is gone')
    assert.equal(
      await lazy.publicClient.readContract({address: lazy.contracts.market, abi: taskMarketAbi, functionName: 'isVerifierBarred', args: [taskId, lazy.account.address]}),
      true,
    )
  })
})
