import assert from 'node:assert/strict'

import {keccak256, toHex} from 'viem'

import {trainJobWithOperatorCorruption} from '../../src/dispute/corruptOperator.js'
import {stateAtStep} from '../../src/dispute/stateHashes.js'
import {traceStep} from '../../src/dispute/traceStep.js'
import {loadJobSpec} from '../../src/ml/spec/index.js'
import {trainJob} from '../../src/ml/train/trainJob.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {settleTask} from '../../src/protocol/marketActions.js'
import {readCommittedClaim} from '../../src/protocol/challengeCommitment.js'
import {commitChallenge} from '../../src/protocol/disputeActions.js'
import {getChallenges} from '../../src/protocol/getChallenges.js'
import {getTask} from '../../src/protocol/getTask.js'
import {createDisputeAgent} from '../../src/dispute/createDisputeAgent.js'
import {acceptedTask, mine} from '../helpers/acceptedTask.js'
import {startMiner} from '../helpers/mining.js'
import {runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'

/** A failure the way users must see it: exit code 2, one line on stderr naming what was wrong, no stack trace. */
function assertOneLineInputError(run: {exitCode?: number | undefined; stderr: unknown}, message: RegExp): void {
  const stderr = String(run.stderr).trim()
  assert.equal(run.exitCode, 2, stderr)
  assert.equal(stderr.split('\n').length, 1, `expected one line, got:\n${stderr}`)
  assert.match(stderr, /^Error: /)
  assert.match(stderr, message)
  assert.doesNotMatch(stderr, /\s+at\s.+:\d+:\d+/)
}

describe('gensyn challenge and gensyn disputes (real processes, real anvil)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet

  before(async () => {
    const roles = {submitters: 1, solvers: 1, verifiers: 1, whistleblowers: 1}
    // An open window of 10 blocks (2 s at the tests' 200 ms miner): the default 3 (0.6 s) was missed by a CLI
    // process polling for it on a loaded machine (three mocha workers on 2 cores).
    devnet = await startLocalDevnet(roles, 0, {config: {forcedErrorBps: 0, challengeWindowBlocks: 50n, openWindowBlocks: 10n, revealWindowBlocks: 1n}})
  })
  after(() => devnet?.stop())

  it('asks for --task or --loop', async () => {
    assertOneLineInputError(await runGensyn(['challenge', '--state-dir', devnet.stateDir, '--account', '4']), /--task: expected a task id to re-check, or --loop/)
  })

  it('refuses --task together with --loop', async () => {
    assertOneLineInputError(await runGensyn(['challenge', '--task', '1', '--loop', '--state-dir', devnet.stateDir, '--account', '4']), /--task|--loop/)
  })

  it('refuses a task id that is not a positive integer before touching the chain', async () => {
    assertOneLineInputError(await runGensyn(['challenge', '--task', 'abc', '--state-dir', '/nonexistent']), /expected a task id \(a positive integer\), got "abc"/)
  })

  it('names a task that does not exist', async () => {
    assertOneLineInputError(await runGensyn(['challenge', '--task', '99', '--state-dir', devnet.stateDir, '--account', '4']), /--task: no task 99 on the market/)
  })

  it('reports the failure as JSON with --json', async () => {
    const run = await runGensyn(['challenge', '--task', '99', '--state-dir', devnet.stateDir, '--account', '4', '--json'])
    assert.equal(run.exitCode, 2)
    const {error} = JSON.parse(String(run.stdout)) as {error: {name: string; message: string}}
    assert.equal(error.name, 'InvalidInputError')
    assert.match(error.message, /no task 99/)
  })

  it('disputes show names a dispute that does not exist; disputes list shows none', async () => {
    assertOneLineInputError(await runGensyn(['disputes', 'show', '7', '--state-dir', devnet.stateDir]), /id: no dispute 7 on the game 0x[0-9a-fA-F]{40}/)
    const listed = await runGensyn(['disputes', 'list', '--state-dir', devnet.stateDir, '--json'])
    assert.equal(listed.exitCode, 0, String(listed.stderr))
    assert.deepEqual(JSON.parse(String(listed.stdout)), [])
  })

  it('challenge --task leaves an honest proof alone and challenges the segment a corrupted proof gets wrong; disputes list/show then show its game', async () => {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, verifier] = await Promise.all([at(1), at(2), at(3)])
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const honest = await trainJob({spec, store: solver.store})
    // the largest output of the step's first Relu: a one-ulp flip there reaches the next state
    const trace = await traceStep({spec, state: await stateAtStep({spec, store: solver.store, manifest: honest.manifest, segment: 2, step: 120})})
    const relu = new Float32Array(trace.elements.find((element) => element.descriptor.kernel === 'Relu')!.data.slice().buffer)
    const corruption = {step: 120, kernel: 'Relu', occurrence: 1, element: relu.indexOf(Math.max(...relu))}
    const corrupted = await trainJobWithOperatorCorruption({spec, store: solver.store, corruption})
    const clean = await acceptedTask({submitter, solver, verifier}, spec, honest)
    const bad = await acceptedTask({submitter, solver, verifier}, spec, corrupted)

    const passed = await runGensyn(['challenge', '--task', String(clean), '--state-dir', devnet.stateDir, '--account', '4', '--json'])
    assert.equal(passed.exitCode, 0, String(passed.stderr))
    assert.deepEqual(JSON.parse(String(passed.stdout)), {taskId: String(clean), checked: [0, 1, 2, 3], mismatch: false, challenged: false})

    // It commits, then waits for the open window: blocks are mined as on an interval-mining devnet.
    const stopMining = startMiner(submitter, 200)
    const caught = await runGensyn(['challenge', '--task', String(bad), '--state-dir', devnet.stateDir, '--account', '4']).finally(stopMining)
    assert.equal(caught.exitCode, 0, String(caught.stderr))
    assert.match(String(caught.stdout), /segment 2 \(steps 100-150\) DIFFERS/)
    assert.match(String(caught.stdout), /committed to a challenge \(queue position 0\)/)
    assert.match(String(caught.stdout), /opened: challenged segment 2 with 0x[0-9a-f]{64}/)

    // Past the reveal window, settle opens the game; the CLI reads it back.
    const task = await getTask(submitter, {taskId: bad})
    await mine(submitter, Number(task.revealEndBlock - (await submitter.publicClient.getBlockNumber())) + 1)
    await settleTask(submitter, {taskId: bad})
    const shown = await runGensyn(['disputes', 'show', '1', '--state-dir', devnet.stateDir, '--json'])
    assert.equal(shown.exitCode, 0, String(shown.stderr))
    const view = JSON.parse(String(shown.stdout)) as Record<string, unknown>
    assert.equal(view.taskId, String(bad))
    assert.equal(view.phase, 'Steps')
    assert.deepEqual([view.lo, view.hi], [100, 150])
    assert.equal(String(view.challenger).toLowerCase(), devnet.accounts[4]!.address.toLowerCase())
    const listed = await runGensyn(['disputes', 'list', '--open', '--state-dir', devnet.stateDir])
    assert.equal(listed.exitCode, 0, String(listed.stderr))
    assert.match(String(listed.stdout), new RegExp(`^1 +${bad} +Steps +0 +steps 100-150 +- `, 'm'))
  })

  it('challenge --task --wait plays the dispute it opens to the end: the corrupted proof loses and the task reopens', async () => {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, verifier] = await Promise.all([at(1), at(2), at(3)])
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const honest = await trainJob({spec, store: solver.store})
    const trace = await traceStep({spec, state: await stateAtStep({spec, store: solver.store, manifest: honest.manifest, segment: 0, step: 30})})
    const relu = new Float32Array(trace.elements.find((element) => element.descriptor.kernel === 'Relu')!.data.slice().buffer)
    const corruption = {step: 30, kernel: 'Relu', occurrence: 1, element: relu.indexOf(Math.max(...relu))}
    const corrupted = await trainJobWithOperatorCorruption({spec, store: solver.store, corruption})
    const taskId = await acceptedTask({submitter, solver, verifier}, spec, corrupted)

    // The whistleblower is a real process; the cheating solver defends its proof here, and a block is mined
    // every 200 ms as on an interval-mining devnet.
    const child = runGensyn(['challenge', '--task', String(taskId), '--wait', '--state-dir', devnet.stateDir, '--account', '4', '--json'])
    let exited = false
    void child.finally(() => (exited = true))
    const prover = createDisputeAgent({connection: solver, stance: 'corrupt', corruption, serveCommittee: false})
    while (!exited) {
      await prover.poll()
      await mine(submitter, 1)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const run = await child
    assert.equal(run.exitCode, 0, String(run.stderr))
    const result = JSON.parse(String(run.stdout)) as {challenged: boolean; segment: number; outcome: string; status: string}
    assert.deepEqual([result.challenged, result.segment, result.outcome, result.status], [true, 0, 'ChallengerWon', 'Submitted'])
    assert.equal((await getTask(submitter, {taskId})).status, 'Submitted')
  })

  it('a rerun after a crash between commit and open reads the commitment back from the chain and opens it, without replaying', async () => {
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    const [submitter, solver, verifier, whistleblower] = await Promise.all([at(1), at(2), at(3), at(4)])
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const taskId = await acceptedTask({submitter, solver, verifier}, spec, await trainJob({spec, store: solver.store}))
    // What the whistleblower sent before it died: the commitment, with its claim sealed in the log.
    const claim = {segment: 1, claimedEndHash: keccak256(toHex('the replay it had computed'))}
    await commitChallenge(whistleblower, {task: await getTask(whistleblower, {taskId}), claim})
    assert.deepEqual(await readCommittedClaim(whistleblower, await getTask(whistleblower, {taskId})), claim)

    const stopMining = startMiner(submitter, 200)
    const rerun = await runGensyn(['challenge', '--task', String(taskId), '--state-dir', devnet.stateDir, '--account', '4', '--json']).finally(stopMining)
    assert.equal(rerun.exitCode, 0, String(rerun.stderr))
    const result = JSON.parse(String(rerun.stdout)) as {checked: number[]; challenged: boolean; segment: number; claimedEndHash: string}
    assert.deepEqual([result.checked, result.challenged, result.segment, result.claimedEndHash], [[], true, 1, claim.claimedEndHash])
    const [opened] = await getChallenges(submitter, {taskId})
    assert.deepEqual([opened?.state, opened?.segment, opened?.claimedEndHash], ['Queued', 1, claim.claimedEndHash])
  })
})
