import assert from 'node:assert/strict'

import fc from 'fast-check'
import {type Address, getAddress, type Hex, parseEther, zeroAddress, zeroHash} from 'viem'

import {defaultProtocolParams} from '../../src/chain/deployContracts.js'
import {pinpointGameAbi, roleRegistryAbi, taskMarketAbi, taskMarketDisputesAbi} from '../../src/chain/generated/index.js'
import {merkleRoot} from '../../src/ml/checkpoint/merkle.js'
import {
  type Actor,
  configWrite,
  type Event,
  expectEvents,
  expectRevert,
  expectNetFlows,
  gameWrite,
  getTask,
  marketWrite,
  normalize,
  snapshotChain,
  stakeOf,
  type TxResult,
  useChain,
  readTask,
} from './helpers/chain.js'
import {
  challengeCommitmentOf,
  commitChallenge,
  ChallengeState,
  defaultSecret,
  disputeArgs,
  driveTask,
  label,
  makeProof,
  mineTo,
  Outcome,
  passWindows,
  type Proof,
  proof,
  rejection,
  openArgs,
  Status,
  taskAt,
  toOpenWindow,
  toRevealWindow,
  verdictArgs,
  verifyTask,
  revealArgs,
} from './helpers/tasks.js'

const ether = parseEther
const STAKE = ether('20')
const SOLVER_STAKE = ether('1')
const VERIFIER_STAKE = ether('0.5')
const DEPOSIT = ether('0.2')
/** PinpointGame.Phase. */
const Phase = {None: 0, Steps: 1, TraceHeader: 2, Operators: 3, Arbitration: 4, Committee: 5, Resolved: 6} as const
const claimed = label('whistleblower replay of the segment')

/** A slash as StakeSlashed reports it (50% winner, 30% treasury, the rest burned; the winner's share to the treasury without one). */
function split(account: Address, winner: Address, amount: bigint) {
  const toWinner = winner === zeroAddress ? 0n : (amount * 5000n) / 10000n
  const toTreasury = (amount * 3000n) / 10000n + (winner === zeroAddress ? (amount * 5000n) / 10000n : 0n)
  return {account, winner, amount, toWinner, toTreasury, burned: amount - toWinner - toTreasury}
}

/** The StakeSlashed events of `events`, as [account, winner, amount, ...] records. */
function slashes(events: Event[]) {
  return normalize(
    events
      .filter((event) => event.eventName === 'StakeSlashed')
      .map(({args}) => ({account: args.account, winner: args.winner, amount: args.amount, toWinner: args.toWinner, toTreasury: args.toTreasury, burned: args.burned})),
  )
}

describe('TaskMarket disputes, forced errors and the jackpot (on anvil, with the real PinpointGame)', function () {
  this.timeout(120_000)
  const ctx = useChain({stake: STAKE, disputeActors: true})
  const setParams = (change: Partial<typeof defaultProtocolParams>) =>
    configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, ...change}])
  const challengesOf = (id: bigint) =>
    ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'challengesOf', args: [id]})
  const isBarred = (id: bigint, account: Address) =>
    ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'isVerifierBarred', args: [id, account]})
  const wasRejected = (id: bigint, account: Address) =>
    ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'wasRejected', args: [id, account]})
  const jackpot = () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'jackpot'})
  const dispute = (disputeId: bigint) =>
    ctx.publicClient.readContract({address: ctx.system.game, abi: pinpointGameAbi, functionName: 'getDispute', args: [disputeId]})
  const settle = (id: bigint) => marketWrite(ctx, ctx.actors.other, 'settle', [id])
  const wbs = () => [ctx.extra.wb1, ctx.extra.wb2, ctx.extra.wb3]
  /** An honest whistleblower's commitment; toRevealWindow / passWindows open it (helpers/tasks.ts). */
  const challenge = (id: bigint, by: Actor, segment = 1, claim: Hex = claimed, p: Proof = proof) => commitChallenge(ctx, by, id, p, segment, claim)

  async function freeOf(account: Address): Promise<bigint> {
    return (await stakeOf(ctx, account)).free
  }

  // ------------------------------------------------------------------ playing the game

  type Party = 'prover' | 'challenger'
  /** Plays dispute `disputeId` to an outcome: `poster` posts the first round and the other stays silent, then timeout. */
  async function playByTimeout(disputeId: bigint, poster: Party | 'none'): Promise<TxResult[]> {
    const results: TxResult[] = []
    const d = await dispute(disputeId)
    const actor = poster === 'none' ? undefined : actorAt(poster === 'prover' ? d.prover : d.challenger)
    if (actor) {
      if (d.phase === Phase.Steps) results.push(await gameWrite(ctx, actor, 'postState', [disputeId, label(`${poster} state`)]))
      else results.push(await gameWrite(ctx, actor, 'postTraceHeader', [disputeId, 1, label(`${poster} graph`), label(`${poster} final`)]))
    }
    await mineTo(ctx, (await dispute(disputeId)).deadline)
    results.push(await gameWrite(ctx, ctx.actors.deployer, 'timeout', [disputeId]))
    return results
  }

  /** Plays to the committee (agreeing on every step, then posting different graphs) and lets it decide. */
  async function playToCommittee(disputeId: bigint, votes: 'neither' | 'none'): Promise<TxResult[]> {
    const results: TxResult[] = []
    let d = await dispute(disputeId)
    const prover = actorAt(d.prover)
    const challenger = actorAt(d.challenger)
    let round = 0
    while (d.phase === Phase.Steps) {
      const agreed = label(`agreed state ${round++}`)
      results.push(await gameWrite(ctx, prover, 'postState', [disputeId, agreed]))
      results.push(await gameWrite(ctx, challenger, 'postState', [disputeId, agreed]))
      d = await dispute(disputeId)
    }
    assert.equal(d.phase, Phase.TraceHeader)
    results.push(await gameWrite(ctx, prover, 'postTraceHeader', [disputeId, 3, label('prover graph'), label('prover final')]))
    results.push(await gameWrite(ctx, challenger, 'postTraceHeader', [disputeId, 3, label('challenger graph'), label('challenger final')]))
    assert.equal((await dispute(disputeId)).phase, Phase.Committee)
    // The committee is drawn from the hash of the block after the one that opened it (anyone draws).
    await mineTo(ctx, (await dispute(disputeId)).drawAnchor + 2n)
    results.push(await gameWrite(ctx, ctx.actors.deployer, 'drawCommittee', [disputeId]))
    const [members] = await ctx.publicClient.readContract({address: ctx.system.game, abi: pinpointGameAbi, functionName: 'committeeOf', args: [disputeId]})
    assert.ok(members.length > 0, 'an eligible committee was drawn')
    if (votes === 'neither') {
      for (const member of members) results.push(await gameWrite(ctx, actorAt(member), 'vote', [disputeId, 3]))
    } else {
      await mineTo(ctx, (await dispute(disputeId)).deadline)
      results.push(await gameWrite(ctx, ctx.actors.deployer, 'timeout', [disputeId]))
    }
    return results
  }

  /** Drives dispute `disputeId` to `outcome` through the real game. */
  async function playTo(disputeId: bigint, outcome: keyof typeof Outcome): Promise<TxResult[]> {
    const {openerIsProver} = await dispute(disputeId)
    let results: TxResult[]
    if (outcome === 'ProverWon') results = await playByTimeout(disputeId, 'prover')
    else if (outcome === 'ChallengerWon') results = await playByTimeout(disputeId, openerIsProver ? 'none' : 'challenger')
    else if (outcome === 'BothWrong') results = await playToCommittee(disputeId, 'neither')
    else results = await playToCommittee(disputeId, 'none')
    const final = await ctx.publicClient.readContract({address: ctx.system.game, abi: pinpointGameAbi, functionName: 'outcomeOf', args: [disputeId]})
    assert.equal(final, Outcome[outcome], `the game ended ${final}, expected ${outcome}`)
    return results
  }

  function actorAt(address: Address): Actor {
    const all = [...Object.values(ctx.actors), ...Object.values(ctx.extra)]
    const actor = all.find((a) => getAddress(a.address) === getAddress(address))
    assert.ok(actor, `no actor at ${address}`)
    return actor
  }

  /** settle until the task has left Verified; returns every transaction. */
  async function settleAll(id: bigint, outcomes: (keyof typeof Outcome)[]): Promise<TxResult[]> {
    const results: TxResult[] = []
    const queue = [...outcomes]
    for (let guard = 0; guard < 20; guard++) {
      const task = await getTask(ctx, id)
      if (task.status !== Status.Verified) return results
      if (task.activeDispute !== 0n) {
        const outcome = queue.shift()
        assert.ok(outcome, 'a game started with no outcome left to play')
        results.push(...(await playTo(task.activeDispute, outcome)))
      }
      results.push(await settle(id))
    }
    assert.fail('settle did not finish in 20 calls')
  }

  // ------------------------------------------------------------------ whistleblower challenges

  describe('challenge (whistleblowers on an accepted verdict)', () => {
    it('commits up to maxChallengers in order (only a hash: the queue shows no claim), locks each deposit; the openings fill the queue in commit order', async () => {
      const id = await taskAt(ctx, 'Verified')
      const [wb1, wb2, wb3] = wbs()
      const first = await challenge(id, wb1!, 2)
      const commitment = challengeCommitmentOf(id, wb1!.address, 2, claimed)
      expectEvents(first.events, [
        {eventName: 'ChallengeCommitted', args: {id, whistleblower: wb1!.address, index: 0n, commitment, sealedClaim: '0x'}},
        {eventName: 'Locked', args: {account: wb1!.address, amount: DEPOSIT}},
      ])
      await challenge(id, wb2!, 0, label('another replay'))
      await challenge(id, wb3!, 3)
      assert.deepEqual(
        normalize((await challengesOf(id)).map((c) => [c.whistleblower, c.commitment, c.state, c.claimedEndHash, c.segment, c.deposit])),
        normalize([
          [wb1!.address, commitment, ChallengeState.Committed, zeroHash, 0, DEPOSIT],
          [wb2!.address, challengeCommitmentOf(id, wb2!.address, 0, label('another replay')), ChallengeState.Committed, zeroHash, 0, DEPOSIT],
          [wb3!.address, challengeCommitmentOf(id, wb3!.address, 3, claimed), ChallengeState.Committed, zeroHash, 0, DEPOSIT],
        ]),
      )
      // Opened in another order than committed: the queue keeps the commit order.
      await toOpenWindow(ctx, id)
      await marketWrite(ctx, wb3!, 'openChallenge', openArgs(id, proof, 3, claimed))
      await marketWrite(ctx, wb2!, 'openChallenge', openArgs(id, proof, 0, label('another replay')))
      const opened = await marketWrite(ctx, wb1!, 'openChallenge', openArgs(id, proof, 2, claimed))
      expectEvents(opened.events, [{eventName: 'ChallengeQueued', args: {id, whistleblower: wb1!.address, index: 0n, segment: 2, claimedEndHash: claimed}}])
      await toRevealWindow(ctx, id)
      const queue = await challengesOf(id)
      assert.deepEqual(
        normalize(queue.map((c) => [c.whistleblower, c.segment, c.state, c.outcome, c.claimedEndHash, c.startHash, c.endHash, c.deposit, c.disputeId])),
        normalize([
          [wb1!.address, 2, ChallengeState.Queued, Outcome.None, claimed, proof.checkpoints[2], proof.checkpoints[3], DEPOSIT, 0n],
          [wb2!.address, 0, ChallengeState.Queued, Outcome.None, label('another replay'), proof.checkpoints[0], proof.checkpoints[1], DEPOSIT, 0n],
          [wb3!.address, 3, ChallengeState.Queued, Outcome.None, claimed, proof.checkpoints[3], proof.checkpoints[4], DEPOSIT, 0n],
        ]),
      )
      for (const wb of [wb1!, wb2!, wb3!]) assert.equal((await stakeOf(ctx, wb.address)).locked, DEPOSIT)
    })

    it('the deposit is snapshotted per challenge: a config change does not change what is unlocked or slashed', async () => {
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, ctx.extra.wb1)
      await setParams({challengeDeposit: ether('3')})
      await passWindows(ctx, id)
      await settleAll(id, ['Void'])
      assert.deepEqual(await stakeOf(ctx, ctx.extra.wb1.address), {free: STAKE, locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('a challenge in the last block of the window is still played to the end (the truebit-os stuck-at-the-end failure class)', async () => {
      const id = await taskAt(ctx, 'Verified')
      const {challengeEndBlock, verdictBlock} = await getTask(ctx, id)
      assert.equal(challengeEndBlock, verdictBlock + 5n)
      await mineTo(ctx, challengeEndBlock - 1n)
      const late = await challenge(id, ctx.extra.wb1)
      assert.equal(late.receipt.blockNumber, challengeEndBlock, 'the challenge landed in the window\'s last block')
      // The game only starts after the reveal window, with a full round timeout for every move.
      await passWindows(ctx, id)
      const started = await settle(id)
      const disputeId = (await getTask(ctx, id)).activeDispute
      expectEvents(started.events.filter((e) => e.eventName === 'DisputeStarted'), [
        {eventName: 'DisputeStarted', args: {id, disputeId, prover: ctx.actors.solver.address, challenger: ctx.extra.wb1.address}},
      ])
      assert.equal((await challengesOf(id))[0]?.state, ChallengeState.Playing)
      // The game has its own round deadlines: the whistleblower answers in the last block of its round, long
      // after the challenge window closed, and settle waits for the outcome.
      const d = await dispute(disputeId)
      assert.ok(d.deadline >= challengeEndBlock + 10n)
      await mineTo(ctx, d.deadline - 1n)
      const answer = await gameWrite(ctx, ctx.extra.wb1, 'postState', [disputeId, label('the whistleblower state')])
      assert.equal(answer.receipt.blockNumber, d.deadline)
      await expectRevert(settle(id), 'DisputeInProgress', [id, disputeId])
      await mineTo(ctx, d.deadline)
      await gameWrite(ctx, ctx.actors.deployer, 'timeout', [disputeId])
      const resolved = await settle(id)
      assert.equal(resolved.events.find((e) => e.eventName === 'DisputeResolved' && getAddress(e.address) === getAddress(ctx.system.market))?.args.outcome, Outcome.ChallengerWon)
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
    })

    it('settle opens the game with the segment\'s steps and hashes; the task verifier is excluded from the committee', async () => {
      const p = makeProof('short last', {count: 4, interval: 10n, totalSteps: 25n})
      const id = await taskAt(ctx, 'Verified', {published: p, honest: p})
      await challenge(id, ctx.extra.wb1, 2, claimed, p)
      await passWindows(ctx, id)
      await settle(id)
      const task = await getTask(ctx, id)
      const d = await dispute(task.activeDispute)
      assert.deepEqual(normalize([d.taskId, d.prover, d.challenger, d.excluded, d.openerIsProver, d.startStep, d.endStep]), normalize([id, ctx.actors.solver.address, ctx.extra.wb1.address, ctx.actors.verifier.address, false, 20n, 25n]))
      // A 5-step segment: bisection from S_20 (agreed) to the disputed end hashes.
      assert.equal(d.phase, Phase.Steps)
      assert.equal(task.nextChallenge, 0)
      assert.equal((await challengesOf(id))[0]?.disputeId, task.activeDispute)
    })

    it('ProverWon (the whistleblower does not answer): its deposit is slashed to the solver; the next settle pays the task out', async () => {
      const {solver, verifier, treasury} = ctx.actors
      const wb = ctx.extra.wb1
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, wb)
      await passWindows(ctx, id)
      await settle(id)
      const disputeId = (await getTask(ctx, id)).activeDispute
      await playTo(disputeId, 'ProverWon')
      const solverFree = await freeOf(solver.address)
      const applied = await settle(id)
      expectEvents(applied.events.filter((e) => e.eventName === 'DisputeResolved'), [
        {eventName: 'DisputeResolved', args: {id, disputeId, outcome: Outcome.ProverWon, solverSlashed: 0n, verifierSlashed: 0n, depositSlashed: DEPOSIT}},
      ])
      assert.deepEqual(slashes(applied.events), normalize([split(wb.address, solver.address, DEPOSIT)]))
      assert.equal(await freeOf(solver.address), solverFree + ether('0.1'))
      assert.equal(await freeOf(treasury.address), ether('0.06'))
      const [c] = await challengesOf(id)
      assert.deepEqual([c?.state, c?.outcome], [ChallengeState.Done, Outcome.ProverWon])
      const paid = await settle(id)
      assert.equal(paid.events[0]?.eventName, 'TaskSettled')
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
      assert.deepEqual(await stakeOf(ctx, wb.address), {free: STAKE - DEPOSIT, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal((await stakeOf(ctx, verifier.address)).locked, 0n)
    })

    it('ProverWon by default when nobody moves: the whistleblower opened the game and bears the burden of going on', async () => {
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, ctx.extra.wb1)
      await passWindows(ctx, id)
      await settle(id)
      const disputeId = (await getTask(ctx, id)).activeDispute
      await playByTimeout(disputeId, 'none')
      assert.equal(await ctx.publicClient.readContract({address: ctx.system.game, abi: pinpointGameAbi, functionName: 'outcomeOf', args: [disputeId]}), Outcome.ProverWon)
    })

    it('ChallengerWon: solver and verifier slashed (winner: the whistleblower), both barred, its deposit and every later one unlocked, the task reopens', async () => {
      const {solver, verifier, submitter} = ctx.actors
      const [wb1, wb2, wb3] = wbs()
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {collect: results})
      for (const wb of [wb1!, wb2!, wb3!]) results.push(await challenge(id, wb))
      await passWindows(ctx, id)
      const settled = await settleAll(id, ['ProverWon', 'ChallengerWon'])
      results.push(...settled)
      const applied = settled.at(-1)!
      expectEvents(applied.events.filter((e) => e.eventName === 'DisputeResolved'), [
        {
          eventName: 'DisputeResolved',
          args: {id, disputeId: 2n, outcome: Outcome.ChallengerWon, solverSlashed: SOLVER_STAKE, verifierSlashed: VERIFIER_STAKE, depositSlashed: 0n},
        },
      ])
      assert.deepEqual(slashes(applied.events), normalize([split(solver.address, wb2!.address, SOLVER_STAKE), split(verifier.address, wb2!.address, VERIFIER_STAKE)]))
      const task = await getTask(ctx, id)
      assert.equal(task.status, Status.Submitted)
      assert.equal(task.attempts, 1)
      assert.deepEqual(await challengesOf(id), [])
      assert.equal(await wasRejected(id, solver.address), true)
      assert.equal(await isBarred(id, verifier.address), true)
      // wb1 lost its deposit (to the solver) in the first game; wb2 won 0.5 + 0.25; wb3 was never played.
      assert.deepEqual(await stakeOf(ctx, wb1!.address), {free: STAKE - DEPOSIT, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.deepEqual(await stakeOf(ctx, wb2!.address), {free: STAKE + ether('0.75'), locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.deepEqual(await stakeOf(ctx, wb3!.address), {free: STAKE, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: STAKE - SOLVER_STAKE + ether('0.1'), locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.deepEqual(await stakeOf(ctx, verifier.address), {free: STAKE - VERIFIER_STAKE, locked: 0n, unbonding: 0n, releaseAt: 0n})
      // No ether moved: the escrow waits for the next solver.
      expectNetFlows(results, [
        [submitter.address, -ether('3')],
        [ctx.system.market, ether('3')],
      ])
      // The reopened task is solved by someone else and verified by someone not barred.
      await expectBarredClaims(id)
    })

    async function expectBarredClaims(id: bigint): Promise<void> {
      const {verifier, verifier2, solver} = ctx.actors
      await expectRevert(marketWrite(ctx, solver, 'claimTask', [id, zeroHash]), 'SolverRejected', [id, solver.address])
      await driveTask(ctx, id, 'Committed', {solver: ctx.extra.solver2})
      await ctx.test.mine({blocks: 1})
      await expectRevert(marketWrite(ctx, verifier, 'claimVerification', [id]), 'VerifierBarred', [id, verifier.address])
      await verifyTask(ctx, id, 'Verified', {verifier: verifier2})
      await passWindows(ctx, id)
      await settle(id)
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
    }

    it('BothWrong (the committee votes "neither"): like ChallengerWon, and the whistleblower\'s deposit is slashed with no winner', async () => {
      const {solver, verifier, verifier2} = ctx.actors
      const wb = ctx.extra.wb1
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, wb)
      await passWindows(ctx, id)
      await settle(id)
      const disputeId = (await getTask(ctx, id)).activeDispute
      const played = await playTo(disputeId, 'BothWrong')
      // The committee was drawn from the verifiers outside the dispute: the task's verifier is excluded.
      const drawn = played.flatMap((r) => r.events).find((e) => e.eventName === 'CommitteeDrawn')
      assert.deepEqual(normalize(drawn?.args.members), [verifier2.address])
      const applied = await settle(id)
      expectEvents(applied.events.filter((e) => e.eventName === 'DisputeResolved'), [
        {eventName: 'DisputeResolved', args: {id, disputeId, outcome: Outcome.BothWrong, solverSlashed: SOLVER_STAKE, verifierSlashed: VERIFIER_STAKE, depositSlashed: DEPOSIT}},
      ])
      assert.deepEqual(
        slashes(applied.events),
        normalize([split(solver.address, wb.address, SOLVER_STAKE), split(verifier.address, wb.address, VERIFIER_STAKE), split(wb.address, zeroAddress, DEPOSIT)]),
      )
      assert.deepEqual(await stakeOf(ctx, wb.address), {free: STAKE - DEPOSIT + ether('0.75'), locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
      assert.equal(await wasRejected(id, solver.address), true)
      assert.equal(await isBarred(id, verifier.address), true)
    })

    it('Void (the committee does not vote): the deposit is unlocked and the next challenge is played, then the task settles', async () => {
      const {solver, verifier} = ctx.actors
      const [wb1, wb2] = wbs()
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, wb1!)
      await challenge(id, wb2!)
      await passWindows(ctx, id)
      const results = await settleAll(id, ['Void', 'Void'])
      const resolved = results.flatMap((r) => r.events).filter((e) => e.eventName === 'DisputeResolved' && getAddress(e.address) === getAddress(ctx.system.market))
      assert.deepEqual(resolved.map((e) => e.args.outcome), [Outcome.Void, Outcome.Void])
      assert.equal(results.flatMap((r) => r.events).filter((e) => e.eventName === 'StakeSlashed').length, 0, 'nobody is slashed')
      assert.equal(results.at(-1)?.events[0]?.eventName, 'TaskSettled')
      for (const wb of [wb1!, wb2!]) assert.deepEqual(await stakeOf(ctx, wb.address), {free: STAKE, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.deepEqual(
        (await challengesOf(id)).map((c) => [c.state, c.outcome]),
        [
          [ChallengeState.Done, Outcome.Void],
          [ChallengeState.Done, Outcome.Void],
        ],
      )
      for (const party of [solver, verifier]) assert.equal((await stakeOf(ctx, party.address)).locked, 0n)
    })

    it('a zero committed checkpoint is wrong on its face: the whistleblower wins without a game', async () => {
      const p = makeProof('zero checkpoint')
      p.checkpoints[2] = zeroHash
      p.root = merkleRoot(p.checkpoints)
      const id = await taskAt(ctx, 'Verified', {published: p, honest: p})
      await challenge(id, ctx.extra.wb1, 1, claimed, p)
      await passWindows(ctx, id)
      const applied = await settle(id)
      assert.equal(applied.events.some((e) => e.eventName === 'DisputeStarted'), false)
      expectEvents(applied.events.filter((e) => e.eventName === 'DisputeResolved'), [
        {eventName: 'DisputeResolved', args: {id, disputeId: 0n, outcome: Outcome.ChallengerWon, solverSlashed: SOLVER_STAKE, verifierSlashed: VERIFIER_STAKE, depositSlashed: 0n}},
      ])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
    })
  })

  // ------------------------------------------------------------------ rejection disputes

  describe('disputeRejection (the solver against a rejecting verifier)', () => {
    it('records the committed checkpoints of the rejected segment; settle opens the game with the solver as opener and prover', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      const filed = await marketWrite(ctx, ctx.actors.solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
      expectEvents(filed.events, [{eventName: 'RejectionDisputed', args: {id, solver: ctx.actors.solver.address}}])
      const task = await getTask(ctx, id)
      assert.deepEqual([task.disputeFiled, task.rejectStartHash, task.rejectEndHash], [true, proof.checkpoints[1], proof.checkpoints[2]])
      await passWindows(ctx, id)
      await settle(id)
      const d = await dispute((await getTask(ctx, id)).activeDispute)
      assert.deepEqual(
        normalize([d.prover, d.challenger, d.excluded, d.openerIsProver, d.startStep, d.endStep, d.loHash, d.proverHi, d.challengerHi]),
        normalize([ctx.actors.solver.address, ctx.actors.verifier.address, zeroAddress, true, 10n, 20n, proof.checkpoints[1], proof.checkpoints[2], rejection.replayHash]),
      )
    })

    it('ProverWon: the verifier is slashed (winner: the solver) and barred; the task is verified again and pays the solver', async () => {
      const {solver, verifier, verifier2, submitter} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      results.push(await marketWrite(ctx, solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment)))
      await passWindows(ctx, id)
      const played = await settleAll(id, ['ProverWon'])
      results.push(...played)
      const applied = played.at(-1)!
      expectEvents(applied.events.filter((e) => e.eventName === 'DisputeResolved'), [
        {eventName: 'DisputeResolved', args: {id, disputeId: 1n, outcome: Outcome.ProverWon, solverSlashed: 0n, verifierSlashed: VERIFIER_STAKE, depositSlashed: 0n}},
      ])
      assert.deepEqual(slashes(applied.events), normalize([split(verifier.address, solver.address, VERIFIER_STAKE)]))
      const task = await getTask(ctx, id)
      assert.equal(task.status, Status.Committed)
      assert.equal(task.verifier, zeroAddress)
      assert.equal(task.solver, solver.address)
      assert.equal(task.solverLocked, SOLVER_STAKE)
      assert.equal(task.commitBlock, applied.receipt.blockNumber)
      assert.equal(await isBarred(id, verifier.address), true)
      assert.equal((await stakeOf(ctx, solver.address)).locked, SOLVER_STAKE, 'the solver stake stays locked for the re-verification')
      await verifyTask(ctx, id, 'Verified', {verifier: verifier2, collect: results})
      await passWindows(ctx, id)
      results.push(await settle(id))
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
      // The submitter paid exactly both rewards (2.5 + 0.5 ether of its 3); the market keeps their 5 % tax.
      expectNetFlows(results, [
        [submitter.address, -ether('3')],
        [solver.address, ether('2.5') - ether('0.125')],
        [verifier2.address, ether('0.5') - ether('0.025')],
        [verifier.address, 0n],
        [ctx.system.market, ether('0.15')],
      ])
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: STAKE + ether('0.25'), locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('ProverWon without a game when the verifier\'s own replay hash equals the committed checkpoint', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false, replayHash: proof.checkpoints[rejection.segment + 1]})
      await marketWrite(ctx, ctx.actors.solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
      await passWindows(ctx, id)
      const applied = await settle(id)
      assert.equal(applied.events.some((e) => e.eventName === 'DisputeStarted'), false)
      expectEvents(applied.events.filter((e) => e.eventName === 'DisputeResolved'), [
        {eventName: 'DisputeResolved', args: {id, disputeId: 0n, outcome: Outcome.ProverWon, solverSlashed: 0n, verifierSlashed: VERIFIER_STAKE, depositSlashed: 0n}},
      ])
      assert.equal((await getTask(ctx, id)).status, Status.Committed)
    })

    it('ChallengerWon (the solver opened the game and does not move): the rejection split, the task reopens', async () => {
      const {solver, verifier} = ctx.actors
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await marketWrite(ctx, solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
      await passWindows(ctx, id)
      const applied = (await settleAll(id, ['ChallengerWon'])).at(-1)!
      expectEvents(applied.events.filter((e) => ['DisputeResolved', 'TaskRejected'].includes(e.eventName)), [
        {eventName: 'DisputeResolved', args: {id, disputeId: 1n, outcome: Outcome.ChallengerWon, solverSlashed: SOLVER_STAKE, verifierSlashed: 0n, depositSlashed: 0n}},
        {eventName: 'TaskRejected', args: {id, solver: solver.address, slashed: SOLVER_STAKE, verifierPaid: ether('0.75'), treasuryPaid: ether('0.15'), burned: ether('0.1'), fromEscrow: 0n, attempts: 1}},
      ])
      assert.deepEqual(slashes(applied.events), normalize([split(solver.address, verifier.address, ether('0.5'))]))
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
      assert.equal(await isBarred(id, verifier.address), false)
      assert.deepEqual(await stakeOf(ctx, verifier.address), {free: STAKE + ether('0.75'), locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('BothWrong: the rejection split with no winner share, and the verifier\'s stake slashed with no winner', async () => {
      const {solver, verifier, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await marketWrite(ctx, solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
      await passWindows(ctx, id)
      const applied = (await settleAll(id, ['BothWrong'])).at(-1)!
      expectEvents(applied.events.filter((e) => ['DisputeResolved', 'TaskRejected'].includes(e.eventName)), [
        {eventName: 'DisputeResolved', args: {id, disputeId: 1n, outcome: Outcome.BothWrong, solverSlashed: SOLVER_STAKE, verifierSlashed: VERIFIER_STAKE, depositSlashed: 0n}},
        {eventName: 'TaskRejected', args: {id, solver: solver.address, slashed: SOLVER_STAKE, verifierPaid: ether('0.5'), treasuryPaid: ether('0.4'), burned: ether('0.1'), fromEscrow: 0n, attempts: 1}},
      ])
      assert.deepEqual(slashes(applied.events), normalize([split(solver.address, zeroAddress, ether('0.5')), split(verifier.address, zeroAddress, VERIFIER_STAKE)]))
      assert.deepEqual(await stakeOf(ctx, verifier.address), {free: STAKE - VERIFIER_STAKE + ether('0.5'), locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal(await freeOf(treasury.address), ether('0.8'))
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
    })

    it('Void: nobody is slashed; the verifier is unlocked and barred and the task goes back to Committed', async () => {
      const {solver, verifier} = ctx.actors
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await marketWrite(ctx, solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
      await passWindows(ctx, id)
      const applied = (await settleAll(id, ['Void'])).at(-1)!
      assert.deepEqual(slashes(applied.events), [])
      expectEvents(applied.events.filter((e) => e.eventName === 'VerificationReopened'), [
        // The same proof again: the event names no manifest.
        {eventName: 'VerificationReopened', args: {id, proofRoot: proof.root, manifestHash: zeroHash, deadline: (await getTask(ctx, id)).deadline}},
      ])
      assert.equal((await getTask(ctx, id)).status, Status.Committed)
      assert.equal(await isBarred(id, verifier.address), true)
      assert.deepEqual(await stakeOf(ctx, verifier.address), {free: STAKE, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal((await stakeOf(ctx, solver.address)).locked, SOLVER_STAKE)
    })

    it('a rejection the solver does not dispute is finalised by settle (the rejection split)', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await passWindows(ctx, id)
      const applied = await settle(id)
      assert.equal(applied.events[0]?.eventName, 'TaskRejected')
    })
  })

  // ------------------------------------------------------------------ forced errors and the jackpot

  describe('forced errors and the jackpot', () => {
    const honest = makeProof('the honest run')
    const published = makeProof('the deliberately wrong publication')
    /** Every task is a forced error; the jackpot holds `fund`. */
    async function forcedTask(options: {accepted: boolean; fund?: bigint; cap?: bigint}): Promise<bigint> {
      await setParams({forcedErrorBps: 10000, ...(options.cap === undefined ? {} : {jackpotCap: options.cap})})
      if (options.fund) await marketWrite(ctx, ctx.actors.deployer, 'fundJackpot', [], {value: options.fund})
      return taskAt(ctx, 'Verified', {accepted: options.accepted, published, honest})
    }
    const reveal = async (id: bigint) => marketWrite(ctx, ctx.actors.solver, 'revealForcedError', await revealArgs(ctx, id, honest))

    it('caught by a rejecting verifier: the verifier takes min(cap, jackpot), is unlocked and not barred; the solver is unharmed; the task is re-verified and settles', async () => {
      const {solver, verifier, verifier2, submitter} = ctx.actors
      const results: TxResult[] = []
      const id = await forcedTask({accepted: false, fund: ether('0.6')})
      await toRevealWindow(ctx, id)
      const revealed = await reveal(id)
      results.push(revealed)
      expectEvents(revealed.events, [
        {eventName: 'VerificationReopened', args: {id, proofRoot: honest.root, manifestHash: honest.manifest, deadline: (await getTask(ctx, id)).deadline}},
        {eventName: 'ForcedErrorRevealed', args: {id, catchers: [verifier.address], paidEach: [ether('0.6')]}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
        {eventName: 'Deposited', args: {account: verifier.address, amount: ether('0.6')}},
      ])
      expectNetFlows([revealed], [
        [ctx.system.market, -ether('0.6')],
        [ctx.system.registry, ether('0.6')],
      ])
      assert.equal(await jackpot(), 0n)
      assert.deepEqual(await stakeOf(ctx, verifier.address), {free: STAKE + ether('0.6'), locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: STAKE - SOLVER_STAKE, locked: SOLVER_STAKE, unbonding: 0n, releaseAt: 0n})
      const task = await getTask(ctx, id)
      assert.deepEqual([task.status, task.proofRoot, task.forcedRevealed], [Status.Committed, honest.root, true])
      // Not stored: readers take the honest proof's manifest from the VerificationReopened above.
      assert.equal((await readTask(ctx, id)).manifestHash, honest.manifest)
      // Its rejection was the right answer: it is not barred, so a market with one verifier can go on.
      assert.equal(await isBarred(id, verifier.address), false)
      // The honest proof is verified (here by someone else) and pays the solver in full.
      await verifyTask(ctx, id, 'Verified', {verifier: verifier2, collect: results})
      await passWindows(ctx, id)
      results.push(await settle(id))
      // From the reveal on (the submission is not collected): the escrow of 3 ether pays both fees less tax (and
      // refunds nothing: it was exactly the two rewards); the market keeps the tax and paid the jackpot share into
      // the registry.
      expectNetFlows(results, [
        [solver.address, ether('2.375')],
        [verifier2.address, ether('0.475')],
        [ctx.system.market, -ether('3') + ether('0.15') - ether('0.6')],
        [ctx.system.registry, ether('0.6')],
      ])
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: STAKE, locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('with one verifier: the verifier that rejected the forced error verifies the honest proof and the task settles', async () => {
      const {verifier} = ctx.actors
      const id = await forcedTask({accepted: false, fund: ether('0.1')})
      await toRevealWindow(ctx, id)
      await reveal(id)
      await verifyTask(ctx, id, 'Verified', {verifier})
      assert.equal((await getTask(ctx, id)).verifier, verifier.address)
      await passWindows(ctx, id)
      await settle(id)
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
    })

    it('the verifier that accepted the forced error is barred from the honest proof', async () => {
      const {verifier} = ctx.actors
      const id = await forcedTask({accepted: true, fund: ether('0.1')})
      await toRevealWindow(ctx, id)
      const revealed = await reveal(id)
      expectEvents(revealed.events.filter((e) => e.eventName === 'VerifierExcluded'), [{eventName: 'VerifierExcluded', args: {id, verifier: verifier.address}}])
      assert.equal(await isBarred(id, verifier.address), true)
    })

    it('a reveal discards a filed rejection dispute: no game is played', async () => {
      const id = await forcedTask({accepted: false, fund: ether('0.1')})
      await marketWrite(ctx, ctx.actors.solver, 'disputeRejection', disputeArgs(id, published, rejection.segment))
      await toRevealWindow(ctx, id)
      await reveal(id)
      const task = await getTask(ctx, id)
      assert.deepEqual([task.status, task.disputeFiled, task.activeDispute], [Status.Committed, false, 0n])
    })

    for (const [n, shares] of [
      [1, [ether('1')]],
      [2, [666666666666666666n, 333333333333333333n]],
      [3, [571428571428571428n, 285714285714285714n, 142857142857142857n]],
    ] as const) {
      it(`a lazy accept caught by ${n} whistleblower(s): shares 2^(n-1-i) / (2^n - 1) of the capped payout, the remainder stays; the verifier is slashed to the first`, async () => {
        const {solver, verifier} = ctx.actors
        const catchers = wbs().slice(0, n)
        const id = await forcedTask({accepted: true, fund: ether('5'), cap: ether('1')})
        for (const wb of catchers) await challenge(id, wb, 1, proof.checkpoints[2]!, published)
        await toRevealWindow(ctx, id)
        const revealed = await reveal(id)
        const paid = shares.reduce((a, b) => a + b, 0n)
        assert.ok(paid <= ether('1') && ether('1') - paid < BigInt(n))
        expectEvents(revealed.events.filter((e) => e.eventName === 'ForcedErrorRevealed'), [
          {eventName: 'ForcedErrorRevealed', args: {id, catchers: catchers.map((c) => c.address), paidEach: [...shares]}},
        ])
        assert.deepEqual(slashes(revealed.events), normalize([split(verifier.address, catchers[0]!.address, VERIFIER_STAKE)]))
        assert.equal(await jackpot(), ether('5') - paid)
        for (const [i, wb] of catchers.entries()) {
          const winnerShare = i === 0 ? ether('0.25') : 0n
          assert.deepEqual(await stakeOf(ctx, wb.address), {free: STAKE + shares[i]! + winnerShare, locked: 0n, unbonding: 0n, releaseAt: 0n})
        }
        assert.equal((await stakeOf(ctx, solver.address)).locked, SOLVER_STAKE)
        assert.equal((await getTask(ctx, id)).status, Status.Committed)
        assert.deepEqual(await challengesOf(id), [])
      })
    }

    it('the payout is the whole jackpot when it is below the cap', async () => {
      const [wb1, wb2] = wbs()
      const id = await forcedTask({accepted: true, fund: ether('0.3'), cap: ether('1')})
      await challenge(id, wb1!, 1, proof.checkpoints[2]!, published)
      await challenge(id, wb2!, 1, proof.checkpoints[2]!, published)
      await toRevealWindow(ctx, id)
      const revealed = await reveal(id)
      expectEvents(revealed.events.filter((e) => e.eventName === 'ForcedErrorRevealed'), [
        {eventName: 'ForcedErrorRevealed', args: {id, catchers: [wb1!.address, wb2!.address], paidEach: [ether('0.2'), ether('0.1')]}},
      ])
      assert.equal(await jackpot(), 0n)
    })

    it('revealed with no catcher: the lazy verifier is slashed with no winner, the jackpot pays nobody', async () => {
      const {verifier, treasury} = ctx.actors
      const id = await forcedTask({accepted: true, fund: ether('0.5')})
      await toRevealWindow(ctx, id)
      const revealed = await reveal(id)
      expectEvents(revealed.events.filter((e) => e.eventName === 'ForcedErrorRevealed'), [{eventName: 'ForcedErrorRevealed', args: {id, catchers: [], paidEach: []}}])
      assert.deepEqual(slashes(revealed.events), normalize([split(verifier.address, zeroAddress, VERIFIER_STAKE)]))
      expectNetFlows([revealed], [])
      assert.equal(await jackpot(), ether('0.5'))
      assert.equal(await freeOf(treasury.address), ether('0.4'))
    })

    it('with an empty jackpot the catchers are paid 0 (no deposit) and still get their deposits back', async () => {
      const wb = ctx.extra.wb1
      const id = await forcedTask({accepted: true})
      await challenge(id, wb, 1, proof.checkpoints[2]!, published)
      await toRevealWindow(ctx, id)
      const revealed = await reveal(id)
      assert.equal(revealed.events.some((e) => e.eventName === 'Deposited'), false)
      assert.deepEqual(await stakeOf(ctx, wb.address), {free: STAKE + ether('0.25'), locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('a forced error nobody reveals is an ordinary wrong proof: a whistleblower who wins the game takes the slashes', async () => {
      const {solver} = ctx.actors
      const wb = ctx.extra.wb1
      const id = await forcedTask({accepted: true, fund: ether('1')})
      await challenge(id, wb, 1, proof.checkpoints[2]!, published)
      await passWindows(ctx, id)
      await settleAll(id, ['ChallengerWon'])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
      assert.equal(await wasRejected(id, solver.address), true)
      assert.equal(await jackpot(), ether('1'), 'no jackpot without a reveal')
    })

    it('jackpotShares matches P * 2^(n-1-i) / (2^n - 1) rounded down, for any payout and up to 255 catchers', async () => {
      const shares = (payout: bigint, n: number) =>
        ctx.publicClient.readContract({address: ctx.system.disputes, abi: taskMarketDisputesAbi, functionName: 'jackpotShares', args: [payout, BigInt(n)]})
      await fc.assert(
        fc.asyncProperty(fc.bigInt({min: 0n, max: 2n ** 256n - 1n}), fc.integer({min: 0, max: 255}), async (payout, n) => {
          const got = await shares(payout, n)
          const denominator = 2n ** BigInt(n) - 1n
          const expected = Array.from({length: n}, (_, i) => (payout * 2n ** BigInt(n - 1 - i)) / denominator)
          assert.deepEqual(got, expected)
          assert.ok(expected.reduce((a, b) => a + b, 0n) <= payout)
        }),
        {numRuns: 150, examples: [[2n ** 256n - 1n, 255], [2n ** 256n - 1n, 1], [1n, 255], [ether('1'), 3]]},
      )
    })
  })

  // ------------------------------------------------------------------ honest parties

  it('no outcome slashes both the solver and the verifier unless the game showed the committed proof wrong (or matched neither claim)', async () => {
    const {solver, verifier} = ctx.actors
    const slashedBoth = new Map<string, boolean>()
    for (const kind of ['whistleblower', 'rejection'] as const) {
      for (const outcome of ['ProverWon', 'ChallengerWon', 'BothWrong', 'Void'] as const) {
        const rollBack = await snapshotChain(ctx)
        const id = await taskAt(ctx, 'Verified', {accepted: kind === 'whistleblower'})
        if (kind === 'whistleblower') await challenge(id, ctx.extra.wb1)
        else await marketWrite(ctx, solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
        await passWindows(ctx, id)
        const results = await settleAll(id, [outcome])
        const slashed = new Set(results.flatMap((r) => r.events).filter((e) => e.eventName === 'StakeSlashed').map((e) => getAddress(e.args.account as Address)))
        slashedBoth.set(`${kind} ${outcome}`, slashed.has(solver.address) && slashed.has(verifier.address))
        await rollBack()
      }
    }
    // An honest solver wins (ProverWon) or draws (Void) any whistleblower game; a verifier that rejected an honest
    // proof loses the rejection game. Both are slashed only where both were shown wrong.
    assert.deepEqual(Object.fromEntries(slashedBoth), {
      'whistleblower ProverWon': false,
      'whistleblower ChallengerWon': true,
      'whistleblower BothWrong': true,
      'whistleblower Void': false,
      'rejection ProverWon': false,
      'rejection ChallengerWon': false,
      'rejection BothWrong': true,
      'rejection Void': false,
    })
  })
})
