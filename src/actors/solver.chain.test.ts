import assert from 'node:assert/strict'
import path from 'node:path'

import {keccak256, parseEther, toHex, zeroHash} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import {selectBackend} from '../ml/backend/index.js'
import {loadJobSpec} from '../ml/spec/index.js'
import {trainJob} from '../ml/train/index.js'
import {type ProofManifest, verifyProof} from '../pol/index.js'
import {createLocalStore} from '../store/index.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {ensureRegistered, getStake} from '../protocol/ensureRegistered.js'
import {getTask} from '../protocol/getTask.js'
import {claimVerification, fundJackpot, postVerdict, sealHonest, secretHashOf} from '../protocol/marketActions.js'
import {submitTask} from '../protocol/submitTask.js'
import {packageRoot} from '../util/packageRoot.js'
import {followTask, type FollowEvent} from './followTask.js'
import {runSolver, SEED_FIX_AFTER_BLOCKS, type SolverEvent} from './solver.js'
import {readSolverState} from './solverState.js'
import {runVerifier, type VerifierEvent} from './verifier.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {mine, startMiner} from '../../test/helpers/mining.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')

describe('runSolver (real anvil, real training)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let stateDir: string
  let submitter: SignedConnection
  let solver: SignedConnection
  let stopMiner: () => Promise<void>

  before(async () => {
    // No forced errors here: the resumed proof must be the honest one.
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0}, 0, {config: {forcedErrorBps: 0}})
    stateDir = devnet.stateDir
    submitter = requireSigner(await connect({stateDir, account: 1}))
    solver = requireSigner(await connect({stateDir, account: 2}))
    // commitProof needs a block after the claim's successor; on automine nothing else would make one.
    stopMiner = startMiner(submitter, 250)
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  it('resumes an interrupted task from its last stored checkpoint instead of step 0, with the secret of its claim', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const {taskId} = await submitTask(submitter, {spec})
    const interval = spec.proof.checkpointInterval

    // First run: Ctrl-C (an abort) once the second checkpoint after step 0 is stored.
    const interrupt = new AbortController()
    const firstRun: SolverEvent[] = []
    const solvedFirst = await runSolver({
      connection: solver,
      backend: 'wasm',
      loop: false,
      signal: interrupt.signal,
      onEvent(event) {
        firstRun.push(event)
        if (event.type === 'checkpoint' && event.step === 2 * interval) interrupt.abort()
      },
    })
    assert.deepEqual(solvedFirst, [])
    const claimed = await getTask(solver, {taskId})
    assert.equal(claimed.status, 'Claimed')
    const saved = await readSolverState(stateDir, solver.account.address, taskId)
    assert.deepEqual(
      saved?.checkpoints.map((checkpoint) => checkpoint.step),
      [0, interval, 2 * interval],
    )
    // The secret was saved before the claim: it opens the secret hash the claim committed to.
    assert.match(saved?.secret ?? '', /^0x[0-9a-f]{64}$/)
    assert.equal(secretHashOf(saved!.secret!), claimed.secretHash)

    // The solver was down long enough for the seed block to age past SEED_FIX_AFTER_BLOCKS: the resumed training
    // records the seed at its first checkpoint, before the EVM could forget it.
    await mine(solver, Number(SEED_FIX_AFTER_BLOCKS) + 5)

    // Second run: picks its own claimed task back up and trains only the remaining steps.
    const secondRun: SolverEvent[] = []
    const [solved] = await runSolver({connection: solver, backend: 'wasm', loop: false, onEvent: (event) => secondRun.push(event)})
    assert.equal(solved?.taskId, taskId)
    assert.equal(solved?.forced, false)
    assert.deepEqual(secondRun.find((event) => event.type === 'resumed'), {type: 'resumed', taskId, step: 2 * interval})
    const steps = secondRun.flatMap((event) => (event.type === 'progress' ? [event.step] : []))
    assert.ok(steps.length > 0 && Math.min(...steps) > 2 * interval, `the second run retrained from step ${Math.min(...steps)}`)
    assert.equal(secondRun.some((event) => event.type === 'claimed'), false, 'it claimed again instead of resuming')
    assert.deepEqual(secondRun.find((event) => event.type === 'coin'), {type: 'coin', taskId, forced: false})
    const seedBlock = await solver.publicClient.getBlock({blockNumber: claimed.claimBlock + 1n})
    assert.equal(secondRun.filter((event) => event.type === 'seed-fixed').length, 1, 'the aging seed was recorded once')
    assert.equal((await getTask(solver, {taskId})).seed, seedBlock.hash)

    // The resumed proof is the same proof an uninterrupted run commits, with its schedule.
    const task = await getTask(solver, {taskId})
    assert.equal(task.status, 'Committed')
    assert.equal(task.checkpointCount, Math.ceil(spec.training.steps / interval) + 1)
    assert.equal(task.checkpointInterval, BigInt(interval))
    assert.equal(task.totalSteps, BigInt(spec.training.steps))
    assert.ok(task.commitBlock > task.claimBlock + 1n)
    const uninterrupted = await trainJob({spec, store: createLocalStore(path.join(stateDir, 'reference-store'))})
    assert.equal(task.proofRoot, uninterrupted.proofRoot)
    assert.equal(task.sealedHonest, sealHonest({honestRoot: uninterrupted.proofRoot, honestManifestHash: uninterrupted.manifestHash, secret: saved!.secret!}))
  })
})

describe('a forced error end to end with one verifier (real anvil, forcedErrorBps 10000, real training and replay)', function () {
  this.timeout(240_000)
  let devnet: LocalDevnet
  let stopMiner: () => Promise<void>

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1}, 0, {config: {forcedErrorBps: 10_000}})
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  it('publishes a wrong proof, the only verifier rejects it, the solver reveals, the same verifier re-verifies the honest proof, it settles accepted, and the jackpot pays the verifier', async () => {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, catcher] = await Promise.all([at(1), at(2), at(3)])
    stopMiner = startMiner(submitter, 500)
    const spec = await loadJobSpec(smokeMlp)
    const {taskId} = await submitTask(submitter, {spec})
    const jackpot = parseEther('2')
    await fundJackpot(submitter, {amount: jackpot})

    // Three actors share this process: load the backend once before they start (selectBackend is not re-entrant).
    await selectBackend('wasm')
    const stop = new AbortController()
    const solverEvents: SolverEvent[] = []
    const catcherEvents: VerifierEvent[] = []
    const followEvents: FollowEvent[] = []
    const actors = Promise.all([
      runSolver({connection: solver, backend: 'wasm', loop: true, pollMs: 200, signal: stop.signal, onEvent: (event) => solverEvents.push(event)}),
      runVerifier({connection: catcher, backend: 'wasm', loop: true, pollMs: 200, signal: stop.signal, onEvent: (event) => catcherEvents.push(event)}),
    ])
    let final
    try {
      final = await followTask({connection: submitter, taskId, pollMs: 200, onEvent: (event) => followEvents.push(event)})
    } finally {
      stop.abort()
      await actors
    }

    // The coin came up forced: a deliberately wrong proof was committed with the honest one sealed.
    assert.deepEqual(solverEvents.find((event) => event.type === 'coin'), {type: 'coin', taskId, forced: true})
    const committed = solverEvents.find((event) => event.type === 'committed')
    assert.ok(committed?.type === 'committed' && committed.sealedHonestRoot !== undefined)
    assert.notEqual(committed.proofRoot, committed.sealedHonestRoot)
    // Every segment of the wrong proof fails its replay, whichever the verifier samples.
    const wrong = await verifyProof({spec, store: solver.store, manifestHash: committed.manifestHash, randomness: zeroHash, segments: [0, 1, 2, 3]})
    assert.equal(wrong.accepted, false)
    for (const segment of [0, 1, 2, 3]) {
      const alone = await verifyProof({spec, store: solver.store, manifestHash: committed.manifestHash, randomness: zeroHash, segments: [segment]})
      assert.equal(alone.checks.replay, 'fail', `segment ${segment} of the forced error replays`)
    }
    const honestManifest = await solver.store.getJson<ProofManifest>((await readSolverState(devnet.stateDir, solver.account.address, taskId))!.honest!.manifestHash)
    assert.equal(honestManifest.merkleRoot, committed.sealedHonestRoot)

    // The verifier replayed and rejected it, naming the failing segment and its replay hash.
    const rejection = catcherEvents.find((event) => event.type === 'verdict')
    assert.ok(rejection?.type === 'verdict')
    assert.equal(rejection.accepted, false)
    assert.equal(rejection.replayed, true)
    assert.notEqual(rejection.replayHash, zeroHash)
    assert.ok(rejection.segment >= 0 && rejection.segment < 4)

    // The solver revealed in the reveal window (it never disputed the rejection of its own forced error).
    const revealed = solverEvents.find((event) => event.type === 'revealed')
    assert.ok(revealed?.type === 'revealed')
    assert.equal(revealed.honestRoot, committed.sealedHonestRoot)
    assert.equal(solverEvents.some((event) => event.type === 'rejection-disputed'), false)

    // The honest proof was re-verified by the same verifier (a correct rejection does not bar it) and settled accepted.
    assert.equal(final.status, 'Settled')
    assert.equal(final.accepted, true)
    assert.equal(final.forcedRevealed, true)
    assert.equal(final.proofRoot, committed.sealedHonestRoot)
    assert.equal(final.verifier, catcher.account.address)
    const verdicts = catcherEvents.flatMap((event) => (event.type === 'verdict' ? [event] : []))
    assert.deepEqual(verdicts.map((verdict) => [verdict.accepted, verdict.replayed]), [[false, true], [true, true]])
    assert.equal(catcherEvents.some((event) => event.type === 'skipped'), false, 'the verifier passed over the honest proof')
    assert.equal(
      await catcher.publicClient.readContract({address: catcher.contracts.market, abi: taskMarketAbi, functionName: 'isVerifierBarred', args: [taskId, catcher.account.address]}),
      false,
    )

    // The jackpot paid the catcher: min(jackpotCap, jackpot) into its free stake, beside its own stake, unlocked.
    const [reveal] = await catcher.publicClient.getContractEvents({
      address: catcher.contracts.market,
      abi: taskMarketAbi,
      eventName: 'ForcedErrorRevealed',
      fromBlock: devnet.deployBlock,
    })
    assert.ok(reveal)
    assert.deepEqual(reveal.args.catchers, [catcher.account.address])
    const paid = reveal.args.paidEach?.[0] ?? 0n
    assert.equal(paid, parseEther('1'), 'min(jackpotCap = 1 ether, jackpot)')
    const catcherStakeAfter = await getStake(catcher, {address: catcher.account.address})
    assert.equal(catcherStakeAfter.locked, 0n)
    assert.equal(catcherStakeAfter.free, 2n * parseEther('0.5') + paid, 'its deposit (two verifier stakes) plus the jackpot')
    // The submitter's follower saw the task through: a settle call finished it.
    assert.ok(followEvents.some((event) => event.type === 'status' && event.task.status === 'Committed' && event.task.forcedRevealed))
  })
})

describe('a solver disputes a false rejection of its honest proof (real anvil, real dispute game)', function () {
  this.timeout(240_000)
  let devnet: LocalDevnet
  let stopMiner: () => Promise<void>

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1}, 0, {config: {forcedErrorBps: 0, roundTimeoutBlocks: 4n}})
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  it('files the dispute in the challenge window, wins the game against a verifier that does not play, and the task goes back to verification', async () => {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, liar] = await Promise.all([at(1), at(2), at(3)])
    stopMiner = startMiner(submitter, 250)
    await selectBackend('wasm')
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const [solved] = await runSolver({connection: solver, backend: 'wasm', loop: false})
    assert.equal(solved?.taskId, taskId)

    // A verifier that rejects the honest proof without replaying, with a made-up replay hash.
    await ensureRegistered(liar, {role: 'verifier'})
    await waitUntil(async () => (await liar.publicClient.getBlockNumber({cacheTime: 0})) > (await getTask(liar, {taskId})).commitBlock + 1n)
    await claimVerification(liar, {taskId})
    const lie = keccak256(toHex('a replay that never ran'))
    await postVerdict(liar, {taskId, accepted: false, reportHash: lie, distance: 0n, segment: 1, replayHash: lie})
    const liarLocked = (await getStake(liar, {address: liar.account.address})).locked
    assert.ok(liarLocked > 0n)

    const stop = new AbortController()
    const events: SolverEvent[] = []
    const solving = runSolver({connection: solver, backend: 'wasm', loop: true, pollMs: 200, signal: stop.signal, onEvent: (event) => events.push(event)})
    try {
      await waitUntil(async () => (await getTask(solver, {taskId})).status === 'Committed', 200_000)
    } finally {
      stop.abort()
      await solving
    }

    const disputed = events.find((event) => event.type === 'rejection-disputed')
    assert.ok(disputed?.type === 'rejection-disputed' && disputed.segment === 1)
    const settles = events.flatMap((event) => (event.type === 'settle' ? [event.outcome] : []))
    assert.equal(settles[0]?.type, 'dispute-started')
    const last = settles.at(-1)
    assert.equal(last?.type, 're-verify')
    assert.equal(last?.resolved?.outcome, 'ProverWon')
    // The liar is slashed and barred; the honest proof waits for another verifier.
    const task = await getTask(solver, {taskId})
    assert.equal(task.proofRoot, solved.proofRoot)
    assert.equal((await getStake(liar, {address: liar.account.address})).locked, 0n)
    assert.equal(
      await liar.publicClient.readContract({address: liar.contracts.market, abi: taskMarketAbi, functionName: 'isVerifierBarred', args: [taskId, liar.account.address]}),
      true,
    )
  })
})

/** Polls `condition` until it holds (or fails after `ms`). */
async function waitUntil(condition: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
