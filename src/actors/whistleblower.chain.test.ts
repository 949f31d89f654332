import assert from 'node:assert/strict'
import path from 'node:path'

import {parseEther} from 'viem'

import {createDisputeAgent, type DisputeAgent} from '../dispute/createDisputeAgent.js'
import {stateAtStep} from '../dispute/stateHashes.js'
import {traceStep} from '../dispute/traceStep.js'
import {trainJobWithOperatorCorruption} from '../dispute/corruptOperator.js'
import {loadJobSpec} from '../ml/spec/index.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {trainJob, type TrainResult} from '../ml/train/trainJob.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {ensureRegistered, getStake} from '../protocol/ensureRegistered.js'
import {getTask} from '../protocol/getTask.js'
import {readWhistleblowerHistory} from '../sim/report/readWhistleblowerHistory.js'
import {packageRoot} from '../util/packageRoot.js'
import {acceptedTask, mine} from '../../test/helpers/acceptedTask.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {createWhistleblower, type Whistleblower, type WhistleblowerEvent} from './whistleblower.js'

describe('runWhistleblower: the litepaper strategy on a real chain', function () {
  this.timeout(600_000)
  let devnet: LocalDevnet
  let spec: JobSpec
  let submitter: SignedConnection
  let solver: SignedConnection
  let verifier: SignedConnection
  let committee: SignedConnection[]
  let wb1: SignedConnection
  let wb2: SignedConnection
  let honest: TrainResult

  before(async () => {
    const roles = {submitters: 1, solvers: 1, verifiers: 4, whistleblowers: 2}
    devnet = await startLocalDevnet(roles, 0, {config: {forcedErrorBps: 0, challengeWindowBlocks: 30n, revealWindowBlocks: 2n, roundTimeoutBlocks: 6n, committeeTimeoutBlocks: 8n}})
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    ;[submitter, solver, verifier] = await Promise.all([at(1), at(2), at(3)])
    committee = await Promise.all([at(4), at(5), at(6)])
    ;[wb1, wb2] = await Promise.all([at(7), at(8)])
    for (const member of committee) await ensureRegistered(member, {role: 'verifier', tasks: 2})
    spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    honest = await trainJob({spec, store: solver.store})
  })
  after(() => devnet?.stop())

  const parties = () => ({submitter, solver, verifier})

  /** Ticks the whistleblower and polls the other agents until `done`, mining a block whenever nothing moved. */
  async function run(whistleblower: Whistleblower, agents: DisputeAgent[], done: () => Promise<boolean>): Promise<void> {
    for (let pass = 0; pass < 300; pass++) {
      const before = await submitter.publicClient.getBlockNumber()
      await whistleblower.tick()
      for (const agent of agents) await agent.poll()
      if (await done()) return
      if ((await submitter.publicClient.getBlockNumber()) === before) await mine(submitter, 1)
    }
    throw new Error('the whistleblower never finished')
  }

  it('joins while fewer than --max-active are active, stays out at the limit, and leaves when the count rises above it', async () => {
    const log1: WhistleblowerEvent[] = []
    const first = createWhistleblower({connection: wb1, maxActive: 1, onEvent: (event) => log1.push(event)})
    await first.start()
    await first.tick()
    assert.deepEqual(log1.find((event) => event.type === 'joined'), {type: 'joined', active: 1n})

    const log2: WhistleblowerEvent[] = []
    const polite = createWhistleblower({connection: wb2, maxActive: 1, onEvent: (event) => log2.push(event)})
    await polite.start()
    await polite.tick()
    assert.equal(log2.some((event) => event.type === 'joined'), false, 'it joined a full set')

    const eager = createWhistleblower({connection: wb2, maxActive: 2, onEvent: (event) => log2.push(event)})
    await eager.tick()
    assert.deepEqual(log2.find((event) => event.type === 'joined'), {type: 'joined', active: 2n})

    await first.tick()
    assert.deepEqual(log1.find((event) => event.type === 'left'), {type: 'left', active: 1n})
    // back to one active whistleblower (wb2) for the next tests
  })

  it('checks accepted tasks, leaves an honest proof alone, challenges a corrupted one and pumps settle until the cheater is slashed', async () => {
    const state = await stateAtStep({spec, store: solver.store, manifest: honest.manifest, segment: 1, step: 70})
    const trace = await traceStep({spec, state})
    const reluOutputs = trace.elements.find((element) => element.descriptor.kernel === 'Relu')!
    const values = new Float32Array(reluOutputs.data.slice().buffer)
    const corruption = {step: 70, kernel: 'Relu', occurrence: 1, element: values.indexOf(Math.max(...values))}
    const corrupted = await trainJobWithOperatorCorruption({spec, store: solver.store, corruption})
    const clean = await acceptedTask(parties(), spec, honest)
    const bad = await acceptedTask(parties(), spec, corrupted)

    const events: WhistleblowerEvent[] = []
    const whistleblower = createWhistleblower({connection: wb2, maxActive: 3, onEvent: (event) => events.push(event)})
    await whistleblower.start()
    const before = await getStake(wb2, {address: wb2.account.address})
    const prover = createDisputeAgent({connection: solver, stance: 'corrupt', corruption, serveCommittee: false})
    await run(whistleblower, [prover], async () => (await getTask(submitter, {taskId: bad})).status === 'Submitted')

    assert.deepEqual([...whistleblower.summary.checked].sort(), [clean, bad].sort(), 'it checked both accepted tasks')
    assert.deepEqual(whistleblower.summary.challenged, [bad])
    assert.deepEqual(events.find((event) => event.type === 'clean'), {type: 'clean', taskId: clean, segments: [0, 1, 2, 3]}, 'every segment of a 4-segment proof is replayed')
    const challenged = events.find((event) => event.type === 'challenged')
    assert.ok(challenged?.type === 'challenged' && challenged.segment === 1, 'it challenged the segment holding the corrupted step')
    assert.ok(events.some((event) => event.type === 'settle' && event.outcome.type === 'dispute-started'), 'it opened its game with settle')
    assert.ok(events.some((event) => event.type === 'dispute' && event.event.type === 'resolved' && event.event.outcome === 'ChallengerWon'))
    const after = await getStake(wb2, {address: wb2.account.address})
    assert.equal(after.free - before.free, parseEther('0.75'), "the winner's shares of the solver's and the verifier's stakes, and its deposit back")
  })

  it('a griefer challenges an honest proof without replaying it, and loses its deposit to the solver', async () => {
    await mine(submitter, 40) // earlier tasks out of their challenge windows: this one is the only candidate
    const taskId = await acceptedTask(parties(), spec, honest)
    const events: WhistleblowerEvent[] = []
    const griefer = createWhistleblower({connection: wb1, maxActive: 3, strategy: 'griefer', onEvent: (event) => events.push(event)})
    await griefer.start()
    const before = await getStake(wb1, {address: wb1.account.address})
    const agents = [createDisputeAgent({connection: solver, serveCommittee: false}), ...committee.map((member) => createDisputeAgent({connection: member}))]
    await run(griefer, agents, async () => (await getTask(submitter, {taskId})).status === 'Settled')

    assert.equal(events.some((event) => event.type === 'segment'), false, 'a griefer replays nothing')
    const challenged = events.find((event) => event.type === 'challenged')
    assert.ok(challenged?.type === 'challenged')
    assert.ok(events.some((event) => event.type === 'dispute' && event.event.type === 'resolved' && event.event.outcome === 'ProverWon'))
    const after = await getStake(wb1, {address: wb1.account.address})
    assert.equal(after.free + after.locked, before.free + before.locked - parseEther('0.2'), 'it lost exactly its deposit')
  })

  it('leaves when its share of the expected jackpot no longer covers its re-check cost, logging the decision with its inputs', async () => {
    // this devnet has no forced errors (forcedErrorBps 0): the jackpot pays a whistleblower nothing per task
    const free = createWhistleblower({connection: wb1, maxActive: 3})
    await free.start()
    await free.tick() // active now, as the threshold rule (a cost of 0) lets it be
    const events: WhistleblowerEvent[] = []
    const costly = createWhistleblower({connection: wb1, maxActive: 3, checkCost: parseEther('0.001'), onEvent: (event) => events.push(event)})
    await costly.start()
    await costly.tick()
    const decision = events.find((event) => event.type === 'decision')
    assert.ok(decision?.type === 'decision')
    assert.equal(decision.action, 'leave')
    assert.equal(decision.isActive, true)
    assert.equal(decision.forcedErrorBps, 0)
    assert.equal(decision.jackpotCap, parseEther('1'))
    assert.equal(decision.checkCost, parseEther('0.001'))
    assert.equal(decision.expectedPayout, 0n)
    assert.match(decision.reason, /^payout 0 below cost 1000000000000000 with \d+ active$/)
    assert.ok(events.some((event) => event.type === 'left'))
    await costly.tick()
    const decisions = events.flatMap((event) => (event.type === 'decision' ? [event.action] : []))
    assert.deepEqual(decisions, ['leave', 'stay out'])
    assert.equal(events.some((event) => event.type === 'joined'), false, 'it does not come back while checking does not pay')
    // the report's series: every join and leave from the registry's events, the last one this leave
    const history = await readWhistleblowerHistory(wb1, 0n, await wb1.publicClient.getBlockNumber({cacheTime: 0}), async () => 0, (address) => (address === wb1.account.address ? 'wb1' : address))
    const last = history.at(-1)
    const left = events.find((event) => event.type === 'left')
    assert.ok(last && left?.type === 'left')
    assert.deepEqual({account: last.account, joined: last.joined, active: last.active}, {account: 'wb1', joined: false, active: Number(left.active)})
    assert.ok(history.some((point) => point.account === 'wb1' && point.joined))
  })
})
