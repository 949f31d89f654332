import assert from 'node:assert/strict'

import {type Address, encodeErrorResult, encodeFunctionData, parseEther, zeroAddress, zeroHash} from 'viem'

import {deployContracts} from '../../src/chain/deployContracts.js'
import {roleRegistryAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  type Chain,
  expectEvents,
  expectNetFlows,
  expectRevert,
  getTask,
  latestTimestamp,
  marketWrite,
  mineAt,
  normalize,
  registryWrite,
  stakeOf,
  type TxResult,
  useChain,
} from './helpers/chain.js'
import {
  defaultTask,
  deployProxy,
  driveTask,
  proof,
  type Proxy,
  proxyCall,
  proxyRead,
  proxySetAcceptEther,
  proxySetReentry,
  Status,
  submitTask,
  taskAt,
} from './helpers/tasks.js'

const ether = parseEther
const STAKE = ether('5')
const SOLVER_STAKE = ether('1')
const VERIFIER_STAKE = ether('0.5')
const {escrow, solverReward, verifierReward} = defaultTask
/** A task whose verifierReward (1.5 ether) exceeds the solver stake (1 ether): a rejection pays 0.5 from escrow. */
const SHORTFALL_TASK = {escrow: ether('3'), solverReward: ether('0.5'), verifierReward: ether('1.5'), shortfall: ether('0.5')}

/**
 * Where every wei goes: exact payouts and stake movements for settlement (accepted, rejected) and the four
 * expiry paths. Every transaction is also checked for conservation by the helpers (tracked balances +
 * contract balances + gas unchanged; totalStaked == registry balance == sum of stakes; totalEscrow == market
 * balance).
 */
describe('TaskMarket settlement and expiry accounting (on anvil)', () => {
  const ctx = useChain({stake: STAKE, params: {solverStake: SOLVER_STAKE, verifierStake: VERIFIER_STAKE, challengeWindow: 5n}})
  const totalStaked = () => ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'totalStaked'})
  const totalEscrow = () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'totalEscrow'})
  const wasRejected = (id: bigint, solver: Address) =>
    ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'wasRejected', args: [id, solver]})

  async function expectStakes(expected: [Address, bigint, bigint][]): Promise<void> {
    for (const [account, freeStake, locked] of expected) {
      const stake = await stakeOf(ctx, account)
      assert.deepEqual({free: stake.free, locked: stake.locked}, {free: freeStake, locked}, `stake of ${account}`)
    }
  }

  describe('settle', () => {
    it('accepted: solver gets solverReward, verifier verifierReward, submitter the rest; both stakes unlocked', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: true, collect: results})
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, SOLVER_STAKE],
        [verifier.address, STAKE - VERIFIER_STAKE, VERIFIER_STAKE],
      ])
      const stakedBefore = await totalStaked()
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      results.push(settled)

      const refund = escrow - solverReward - verifierReward
      expectEvents(settled.events, [
        {eventName: 'TaskSettled', args: {id, accepted: true, solverPaid: solverReward, verifierPaid: verifierReward, refunded: refund}},
        {eventName: 'Unlocked', args: {account: solver.address, amount: SOLVER_STAKE}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows([settled], [
        [solver.address, solverReward],
        [verifier.address, verifierReward],
        [submitter.address, refund],
        [ctx.system.market, -escrow],
      ])
      // Over the whole life of the task: the submitter paid exactly the two rewards.
      expectNetFlows(results, [
        [submitter.address, -(solverReward + verifierReward)],
        [solver.address, solverReward],
        [verifier.address, verifierReward],
        [treasury.address, 0n],
      ])
      await expectStakes([
        [solver.address, STAKE, 0n],
        [verifier.address, STAKE, 0n],
        [treasury.address, 0n, 0n],
      ])
      assert.equal(await totalStaked(), stakedBefore)
      assert.equal(await totalEscrow(), 0n)
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
    })

    it('pays nothing to a zero reward, so a recipient that rejects ether cannot block a zero-reward settlement', async () => {
      const proxy = await proxySolver(ctx)
      const id = await proxyTaskAtVerified(ctx, proxy, {solverReward: 0n})
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      expectNetFlows([settled], [
        [ctx.actors.verifier.address, verifierReward],
        [ctx.actors.submitter.address, escrow - verifierReward],
        [ctx.system.market, -escrow],
      ])
      assert.equal((await stakeOf(ctx, proxy.address)).free, ether('2'))
    })

    it('reverts TransferFailed(solver, solverReward) when the solver rejects ether; settles once it accepts', async () => {
      const proxy = await proxySolver(ctx)
      const id = await proxyTaskAtVerified(ctx, proxy)
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 6)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'TransferFailed', [proxy.address, solverReward])
      assert.equal((await getTask(ctx, id)).status, Status.Verified)
      await proxySetAcceptEther(ctx, proxy, true)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      expectNetFlows([settled], [
        [proxy.address, solverReward],
        [ctx.actors.verifier.address, verifierReward],
        [ctx.actors.submitter.address, escrow - solverReward - verifierReward],
        [ctx.system.market, -escrow],
      ])
    })

    it('reverts TransferFailed(submitter, refund) when the submitter rejects its refund of an accepted task', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      const submitted = await proxyCall(
        ctx,
        proxy,
        ctx.system.market,
        taskMarketAbi,
        'submitTask',
        [defaultTask.specHash, solverReward, verifierReward, 100n, 200n, 300n],
        escrow,
      )
      const id = submitted.events.find((event) => event.eventName === 'TaskSubmitted')!.args.id as bigint
      await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id])
      await marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, 3])
      await ctx.test.mine({blocks: 1})
      await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
      await marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, true, proof.report, proof.distance])
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 6)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'TransferFailed', [proxy.address, escrow - solverReward - verifierReward])
    })

    it('is safe against reentry: a solver re-entering settle gets InvalidStatus(id, Settled) and is paid once', async () => {
      const proxy = await proxySolver(ctx)
      const id = await proxyTaskAtVerified(ctx, proxy)
      await proxySetReentry(ctx, proxy, ctx.system.market, encodeFunctionData({abi: taskMarketAbi, functionName: 'settle', args: [id]}))
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      assert.equal(await proxyRead(ctx, proxy, 'reentryAttempted'), true)
      assert.equal(await proxyRead(ctx, proxy, 'lastReentryOk'), false)
      assert.equal(
        await proxyRead(ctx, proxy, 'lastReentryResult'),
        encodeErrorResult({abi: taskMarketAbi, errorName: 'InvalidStatus', args: [id, Status.Settled]}),
      )
      expectNetFlows([settled], [
        [proxy.address, solverReward],
        [ctx.actors.verifier.address, verifierReward],
        [ctx.actors.submitter.address, escrow - solverReward - verifierReward],
        [ctx.system.market, -escrow],
      ])
      assert.equal(await totalEscrow(), 0n)
    })
  })

  describe('settle: a rejection slashes the solver, makes the submitter whole and reopens the task', () => {
    /** Deploys another wired system with these stakes; registers solver (2 ether) and verifier (`verifierStake`). */
    async function deploySystem(params: {solverStake: bigint; verifierStake?: bigint}) {
      const {solver, verifier, treasury} = ctx.actors
      const deployed = await deployContracts({
        publicClient: ctx.publicClient,
        walletClient: ctx.actors.deployer.wallet,
        params: {treasury: treasury.address, solverStake: params.solverStake, verifierStake: params.verifierStake ?? 3n, challengeWindow: 1n},
      })
      const system = {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds}
      ctx.systems.push(system)
      await registryWrite(ctx, solver, 'register', [1], {value: ether('2'), address: system.registry})
      await registryWrite(ctx, verifier, 'register', [2], {value: params.verifierStake ?? 3n, address: system.registry})
      return system
    }

    it('default split (S = 1 ether, verifierReward = 0.5 ether): fee 0.5 + bounty 0.25 to the verifier, 0.25 to the treasury; no ether moves', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      const verified = await getTask(ctx, id)
      assert.equal(verified.distance, proof.distance)
      const stakedBefore = await totalStaked()
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      results.push(settled)
      const now = await latestTimestamp(ctx)

      // The worked example of docs/design.md, in wei.
      const fee = 500_000_000_000_000_000n
      const bounty = 250_000_000_000_000_000n
      const toTreasury = 250_000_000_000_000_000n
      assert.equal(fee, verifierReward)
      assert.equal(fee + bounty + toTreasury, SOLVER_STAKE)
      expectEvents(settled.events, [
        {
          eventName: 'TaskRejected',
          args: {id, solver: solver.address, slashed: SOLVER_STAKE, verifierPaid: fee + bounty, treasuryPaid: toTreasury, attempts: 1},
        },
        {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: fee + bounty}},
        {eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: toTreasury}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
      ])
      // The rejection moves no ether: the verifier is paid in stake, and the escrow stays for the next solver.
      expectNetFlows([settled], [])
      expectNetFlows(results, [
        [submitter.address, -escrow],
        [ctx.system.market, escrow],
      ])
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, 0n],
        [verifier.address, STAKE + fee + bounty, 0n],
        [treasury.address, toTreasury, 0n],
      ])
      assert.equal(await totalStaked(), stakedBefore, 'slashing moves stake inside the registry only')
      assert.equal(await totalEscrow(), escrow)

      // Reopened: a fresh Submitted task apart from attempts, escrow and the deadline.
      assert.deepEqual(await getTask(ctx, id), {
        ...verified,
        status: Status.Submitted,
        solver: zeroAddress,
        verifier: zeroAddress,
        accepted: false,
        attempts: 1,
        deadline: now + defaultTask.claimTimeout,
        commitBlock: 0n,
        checkpointCount: 0,
        proofRoot: zeroHash,
        manifestHash: zeroHash,
        randomness: zeroHash,
        reportHash: zeroHash,
        distance: 0n,
      })
      assert.equal(await wasRejected(id, solver.address), true)
      assert.equal(await wasRejected(id, verifier.address), false)
    })

    it('an odd remainder: the verifier bounty is rounded down, the treasury gets the extra wei', async () => {
      const {solver, verifier, other, treasury} = ctx.actors
      const oddStake = ether('1') + 1n
      const system = await deploySystem({solverStake: oddStake})
      const id = await taskAt(ctx, 'Verified', {accepted: false, market: system.market})
      await advanceTime(ctx, 2)
      const settled = await marketWrite(ctx, other, 'settle', [id], {address: system.market})
      // S - fee = 0.5 ether + 1 wei: bounty 0.25 ether, treasury 0.25 ether + 1 wei.
      expectEvents(settled.events.slice(2, 4), [
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: verifierReward + ether('0.25')}},
        {eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: ether('0.25') + 1n}},
      ])
      expectNetFlows([settled], [])
      assert.equal((await stakeOf(ctx, verifier.address, system.registry)).free, 3n + ether('0.75'))
      assert.equal((await stakeOf(ctx, treasury.address, system.registry)).free, ether('0.25') + 1n)
      assert.deepEqual(await stakeOf(ctx, solver.address, system.registry), {free: ether('2') - oddStake, locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    for (const [label, solverStake, toVerifier, toTreasury] of [
      ['S == verifierReward: all of it is the fee, no bounty, nothing to the treasury (no second Slashed)', ether('0.5'), ether('0.5'), 0n],
      ['S == verifierReward + 1 wei: the wei left goes to the treasury (the bounty rounds to 0)', ether('0.5') + 1n, ether('0.5'), 1n],
      ['S == verifierReward + 2 wei: 1 wei bounty, 1 wei treasury', ether('0.5') + 2n, ether('0.5') + 1n, 1n],
    ] as const) {
      it(label, async () => {
        const {solver, verifier, other, treasury} = ctx.actors
        const system = await deploySystem({solverStake})
        const id = await taskAt(ctx, 'Verified', {accepted: false, market: system.market})
        await advanceTime(ctx, 2)
        const settled = await marketWrite(ctx, other, 'settle', [id], {address: system.market})
        const now = await latestTimestamp(ctx)
        expectEvents(settled.events, [
          {eventName: 'TaskRejected', args: {id, solver: solver.address, slashed: solverStake, verifierPaid: toVerifier, treasuryPaid: toTreasury, attempts: 1}},
          {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
          {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: toVerifier}},
          ...(toTreasury === 0n ? [] : [{eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: toTreasury}}]),
          {eventName: 'Unlocked', args: {account: verifier.address, amount: 3n}},
        ])
        expectNetFlows([settled], [])
        assert.equal((await getTask(ctx, id, system.market)).escrow, escrow)
      })
    }

    it('S < verifierReward: the stake pays what it can, the escrow the shortfall (in ether); verifierReward stays for the next attempt', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      const solverStake = ether('0.2')
      const shortfall = verifierReward - solverStake
      const system = await deploySystem({solverStake})
      await registryWrite(ctx, verifier2, 'register', [2], {value: 3n, address: system.registry})
      await registryWrite(ctx, other, 'register', [1], {value: ether('1'), address: system.registry})
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, market: system.market, collect: results})
      await advanceTime(ctx, 2)
      const settled = await marketWrite(ctx, other, 'settle', [id], {address: system.market})
      results.push(settled)
      const now = await latestTimestamp(ctx)
      expectEvents(settled.events, [
        {eventName: 'TaskRejected', args: {id, solver: solver.address, slashed: solverStake, verifierPaid: verifierReward, treasuryPaid: 0n, attempts: 1}},
        {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: solverStake}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: 3n}},
      ])
      expectNetFlows([settled], [
        [verifier.address, shortfall],
        [system.market, -shortfall],
      ])
      const reopened = await getTask(ctx, id, system.market)
      assert.equal(reopened.escrow, escrow - shortfall)
      assert.equal(reopened.verifierReward, verifierReward)
      assert.equal(await ctx.publicClient.readContract({address: system.market, abi: taskMarketAbi, functionName: 'totalEscrow'}), escrow - shortfall)
      assert.equal((await stakeOf(ctx, verifier.address, system.registry)).free, 3n + solverStake)
      assert.equal((await stakeOf(ctx, treasury.address, system.registry)).free, 0n)

      // 2.7 ether still covers both rewards: the next attempt is accepted and the refund is what is left.
      await driveTask(ctx, id, 'Verified', {solver: other, verifier: verifier2, market: system.market, collect: results})
      await advanceTime(ctx, 2)
      const accepted = await marketWrite(ctx, ctx.actors.deployer, 'settle', [id], {address: system.market})
      results.push(accepted)
      expectEvents(accepted.events.slice(0, 1), [
        {
          eventName: 'TaskSettled',
          args: {id, accepted: true, solverPaid: solverReward, verifierPaid: verifierReward, refunded: escrow - shortfall - solverReward - verifierReward},
        },
      ])
      // Over the task's life the submitter paid both rewards plus the shortfall, and nothing else.
      expectNetFlows(results, [
        [submitter.address, -(solverReward + verifierReward + shortfall)],
        [verifier.address, shortfall],
        [verifier2.address, verifierReward],
        [other.address, solverReward],
      ])
    })

    it('S == 0: the whole verifierReward comes from the escrow and nothing is slashed', async () => {
      const {solver, verifier, other} = ctx.actors
      const system = await deploySystem({solverStake: 0n})
      const id = await taskAt(ctx, 'Verified', {accepted: false, market: system.market})
      await advanceTime(ctx, 2)
      const settled = await marketWrite(ctx, other, 'settle', [id], {address: system.market})
      assert.deepEqual(
        settled.events.map((event) => event.eventName),
        ['TaskRejected', 'TaskReopened', 'Unlocked'],
      )
      assert.deepEqual(normalize(settled.events[0]?.args), normalize({id, solver: solver.address, slashed: 0n, verifierPaid: verifierReward, treasuryPaid: 0n, attempts: 1}))
      expectNetFlows([settled], [
        [verifier.address, verifierReward],
        [system.market, -verifierReward],
      ])
    })

    it('the next solver starts on a fresh claim deadline (even past the original one) and, if accepted, the submitter has paid exactly the two rewards', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      await registryWrite(ctx, other, 'register', [1], {value: STAKE})
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      const originalClaimDeadline = (await getTask(ctx, id)).submittedAt + defaultTask.claimTimeout
      await advanceTime(ctx, defaultTask.claimTimeout + 50n)
      results.push(await marketWrite(ctx, verifier2, 'settle', [id]))
      const {deadline} = await getTask(ctx, id)
      assert.ok(deadline > originalClaimDeadline + 50n)
      assert.ok((await latestTimestamp(ctx)) > originalClaimDeadline)

      // verifier2 verifies the second attempt: a rejected attempt's verifier may verify again, but need not.
      await driveTask(ctx, id, 'Verified', {solver: other, verifier: verifier2, accepted: true, collect: results})
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, verifier, 'settle', [id])
      results.push(settled)
      expectEvents(settled.events, [
        {
          eventName: 'TaskSettled',
          args: {id, accepted: true, solverPaid: solverReward, verifierPaid: verifierReward, refunded: escrow - solverReward - verifierReward},
        },
        {eventName: 'Unlocked', args: {account: other.address, amount: SOLVER_STAKE}},
        {eventName: 'Unlocked', args: {account: verifier2.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows(results, [
        [submitter.address, -(solverReward + verifierReward)],
        [other.address, solverReward],
        [verifier2.address, verifierReward],
        [verifier.address, 0n],
        [solver.address, 0n],
        [ctx.system.market, 0n],
      ])
      const task = await getTask(ctx, id)
      assert.equal(task.status, Status.Settled)
      assert.equal(task.attempts, 1)
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, 0n],
        [verifier.address, STAKE + ether('0.75'), 0n],
        [treasury.address, ether('0.25'), 0n],
        [other.address, STAKE, 0n],
        [verifier2.address, STAKE, 0n],
      ])
      assert.equal(await totalEscrow(), 0n)
    })

    it('a reopened task nobody claims expires after its fresh deadline with the whole escrow refunded', async () => {
      const {submitter, other} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      await advanceTime(ctx, 6)
      results.push(await marketWrite(ctx, other, 'settle', [id]))
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, other, 'expire', [id]), 'DeadlineNotReached', [id, deadline])
      await mineAt(ctx, deadline + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      results.push(expired)
      expectEvents(expired.events, [{eventName: 'TaskExpired', args: {id, fromStatus: Status.Submitted, refunded: escrow}}])
      expectNetFlows(results, [
        [submitter.address, 0n],
        [ctx.system.market, 0n],
      ])
      assert.equal(await totalEscrow(), 0n)
    })

    it('a task exhausted by shortfalls cannot be claimed, and expires with what is left', async () => {
      const {submitter, verifier, other} = ctx.actors
      await registryWrite(ctx, other, 'register', [1], {value: STAKE})
      // verifierReward 1.5 > S = 1: each rejection takes 0.5 ether of escrow; 2 ether no longer covers 0.5 + 1.5.
      const task = {escrow: ether('2'), solverReward: ether('0.5'), verifierReward: ether('1.5')}
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {...task, accepted: false, collect: results})
      await advanceTime(ctx, 6)
      results.push(await marketWrite(ctx, other, 'settle', [id]))
      await expectRevert(marketWrite(ctx, other, 'claimTask', [id]), 'EscrowExhausted', [id, ether('1.5'), ether('2')])
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      results.push(expired)
      expectEvents(expired.events, [{eventName: 'TaskExpired', args: {id, fromStatus: Status.Submitted, refunded: ether('1.5')}}])
      expectNetFlows(results, [
        [submitter.address, -ether('0.5')],
        [verifier.address, ether('0.5')],
        [ctx.system.market, 0n],
      ])
      assert.equal((await stakeOf(ctx, verifier.address)).free, STAKE + SOLVER_STAKE)
      assert.equal(await totalEscrow(), 0n)
    })

    it('two rejections: attempts counts them and both solvers are barred from the task', async () => {
      const {solver, verifier, verifier2, other} = ctx.actors
      await registryWrite(ctx, other, 'register', [1], {value: STAKE})
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await advanceTime(ctx, 6)
      await marketWrite(ctx, verifier2, 'settle', [id])
      await driveTask(ctx, id, 'Verified', {solver: other, verifier: verifier2, accepted: false})
      await advanceTime(ctx, 6)
      const second = await marketWrite(ctx, verifier, 'settle', [id])
      assert.equal(second.events[0]?.eventName, 'TaskRejected')
      assert.equal(second.events[0]?.args.attempts, 2)
      assert.equal(normalize(second.events[0]?.args.solver), other.address)
      assert.equal((await getTask(ctx, id)).attempts, 2)
      for (const barred of [solver, other]) {
        assert.equal(await wasRejected(id, barred.address), true)
        await expectRevert(marketWrite(ctx, barred, 'claimTask', [id]), 'SolverRejected', [id, barred.address])
      }
      assert.equal(await totalEscrow(), escrow)
    })

    it('a submitter that rejects ether cannot block a rejection: it is paid nothing', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      const submitted = await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'submitTask', [defaultTask.specHash, solverReward, verifierReward, 100n, 200n, 300n], escrow)
      const id = submitted.events.find((event) => event.eventName === 'TaskSubmitted')!.args.id as bigint
      await driveTask(ctx, id, 'Verified', {accepted: false})
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      expectNetFlows([settled], [])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
    })

    it('reverts TransferFailed(verifier, shortfall) when a verifier owed a shortfall rejects ether; settles once it accepts', async () => {
      const proxy = await proxyVerifier(ctx)
      const id = await proxyVerifiedRejection(ctx, proxy)
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 6)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'TransferFailed', [proxy.address, SHORTFALL_TASK.shortfall])
      assert.equal((await getTask(ctx, id)).status, Status.Verified)
      await proxySetAcceptEther(ctx, proxy, true)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      expectNetFlows([settled], [
        [proxy.address, SHORTFALL_TASK.shortfall],
        [ctx.system.market, -SHORTFALL_TASK.shortfall],
      ])
    })

    it('is safe against reentry: a verifier re-entering settle while paid its shortfall gets InvalidStatus(id, Submitted) and is paid once', async () => {
      const proxy = await proxyVerifier(ctx)
      const id = await proxyVerifiedRejection(ctx, proxy)
      await proxySetReentry(ctx, proxy, ctx.system.market, encodeFunctionData({abi: taskMarketAbi, functionName: 'settle', args: [id]}))
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      assert.equal(await proxyRead(ctx, proxy, 'reentryAttempted'), true)
      assert.equal(await proxyRead(ctx, proxy, 'lastReentryOk'), false)
      assert.equal(
        await proxyRead(ctx, proxy, 'lastReentryResult'),
        encodeErrorResult({abi: taskMarketAbi, errorName: 'InvalidStatus', args: [id, Status.Submitted]}),
      )
      expectNetFlows([settled], [
        [proxy.address, SHORTFALL_TASK.shortfall],
        [ctx.system.market, -SHORTFALL_TASK.shortfall],
      ])
      assert.equal(await totalEscrow(), SHORTFALL_TASK.escrow - SHORTFALL_TASK.shortfall)
    })

    it('after a rejection and an expiry everyone withdraws everything: the contracts end empty and each account nets exactly its share', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      await advanceTime(ctx, 6)
      results.push(await marketWrite(ctx, other, 'settle', [id]))
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      results.push(await marketWrite(ctx, other, 'expire', [id]))
      for (const account of [solver, verifier, verifier2, treasury]) {
        const {free: amount} = await stakeOf(ctx, account.address)
        results.push(await registryWrite(ctx, account, 'requestUnbond', [amount]))
      }
      await advanceTime(ctx, ctx.params.unbondingDelay)
      for (const account of [solver, verifier, verifier2, treasury]) results.push(await registryWrite(ctx, account, 'withdraw', []))

      assert.equal(await ctx.publicClient.getBalance({address: ctx.system.registry}), 0n)
      assert.equal(await ctx.publicClient.getBalance({address: ctx.system.market}), 0n)
      assert.equal(await totalStaked(), 0n)
      // Registration deposits happened before this test, so withdrawals return them: net of the stake itself.
      expectNetFlows(results, [
        [submitter.address, 0n],
        [solver.address, STAKE - SOLVER_STAKE],
        [verifier.address, STAKE + ether('0.75')],
        [verifier2.address, STAKE],
        [treasury.address, ether('0.25')],
        [ctx.system.registry, -(3n * STAKE)],
      ])
    })
  })

  describe('expire', () => {
    it('Submitted (nobody claimed): the whole escrow goes back', async () => {
      const {submitter, other} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Submitted', {collect: results})
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      results.push(expired)
      expectEvents(expired.events, [{eventName: 'TaskExpired', args: {id, fromStatus: Status.Submitted, refunded: escrow}}])
      expectNetFlows([expired], [
        [submitter.address, escrow],
        [ctx.system.market, -escrow],
      ])
      expectNetFlows(results, [[submitter.address, 0n]])
      assert.equal((await getTask(ctx, id)).status, Status.Expired)
      assert.equal(await totalEscrow(), 0n)
    })

    it('Claimed (no proof in time): escrow refunded, the solver stake slashed to the treasury', async () => {
      const {submitter, solver, other, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Claimed')
      const stakedBefore = await totalStaked()
      await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      expectEvents(expired.events, [
        {eventName: 'TaskExpired', args: {id, fromStatus: Status.Claimed, refunded: escrow}},
        {eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: SOLVER_STAKE}},
      ])
      expectNetFlows([expired], [
        [submitter.address, escrow],
        [ctx.system.market, -escrow],
      ])
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, 0n],
        [treasury.address, SOLVER_STAKE, 0n],
      ])
      assert.equal(await totalStaked(), stakedBefore)
    })

    it('Committed (no verifier in time): escrow refunded, the solver stake unlocked', async () => {
      const {submitter, solver, other, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Committed')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      expectEvents(expired.events, [
        {eventName: 'TaskExpired', args: {id, fromStatus: Status.Committed, refunded: escrow}},
        {eventName: 'Unlocked', args: {account: solver.address, amount: SOLVER_STAKE}},
      ])
      expectNetFlows([expired], [
        [submitter.address, escrow],
        [ctx.system.market, -escrow],
      ])
      await expectStakes([
        [solver.address, STAKE, 0n],
        [treasury.address, 0n, 0n],
      ])
    })

    it('Verifying (no verdict in time): escrow refunded, solver stake unlocked, verifier stake slashed to the treasury', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Verifying')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      expectEvents(expired.events, [
        {eventName: 'TaskExpired', args: {id, fromStatus: Status.Verifying, refunded: escrow}},
        {eventName: 'Unlocked', args: {account: solver.address, amount: SOLVER_STAKE}},
        {eventName: 'Slashed', args: {from: verifier.address, to: treasury.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows([expired], [
        [submitter.address, escrow],
        [ctx.system.market, -escrow],
      ])
      await expectStakes([
        [solver.address, STAKE, 0n],
        [verifier.address, STAKE - VERIFIER_STAKE, 0n],
        [treasury.address, VERIFIER_STAKE, 0n],
      ])
    })

    it('reverts TransferFailed(submitter, escrow) when the submitter rejects the refund', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'submitTask', [defaultTask.specHash, 1n, 1n, 100n, 200n, 300n], escrow)
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 101)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [1n]), 'TransferFailed', [proxy.address, escrow])
      await proxySetAcceptEther(ctx, proxy, true)
      const expired = await marketWrite(ctx, ctx.actors.other, 'expire', [1n])
      expectNetFlows([expired], [
        [proxy.address, escrow],
        [ctx.system.market, -escrow],
      ])
    })
  })

  it('many tasks at once: totalEscrow is the sum of the live escrows and each task settles independently', async () => {
    const {other} = ctx.actors
    const a = await taskAt(ctx, 'Verified', {escrow: ether('2')})
    const b = await taskAt(ctx, 'Claimed', {escrow: ether('4'), solver: ctx.actors.solver})
    const {id: c} = await submitTask(ctx, {escrow: ether('7')})
    assert.equal(await totalEscrow(), ether('13'))
    await expectStakes([[ctx.actors.solver.address, STAKE - 2n * SOLVER_STAKE, 2n * SOLVER_STAKE]])
    await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
    await marketWrite(ctx, other, 'settle', [a])
    assert.equal(await totalEscrow(), ether('11'))
    await marketWrite(ctx, other, 'expire', [b])
    assert.equal(await totalEscrow(), ether('7'))
    await marketWrite(ctx, other, 'expire', [c])
    assert.equal(await totalEscrow(), 0n)
    await expectStakes([[ctx.actors.solver.address, STAKE - SOLVER_STAKE, 0n]])
  })
})

/** A ProxyActor registered as a solver with 2 ether of stake. */
async function proxySolver(ctx: Chain): Promise<Proxy> {
  const proxy = await deployProxy(ctx, ctx.actors.other)
  await proxyCall(ctx, proxy, ctx.system.registry, roleRegistryAbi, 'register', [1], parseEther('2'))
  return proxy
}

/** Drives a task solved by `proxy` to Verified (accepted). */
async function proxyTaskAtVerified(ctx: Chain, proxy: Proxy, options: {solverReward?: bigint} = {}): Promise<bigint> {
  const {id} = await submitTask(ctx, options)
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'claimTask', [id])
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'commitProof', [id, proof.root, proof.manifest, 3])
  await ctx.test.mine({blocks: 1})
  await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
  await marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, true, proof.report, proof.distance])
  return id
}

/** A ProxyActor registered as a verifier with 2 ether of stake. */
async function proxyVerifier(ctx: Chain): Promise<Proxy> {
  const proxy = await deployProxy(ctx, ctx.actors.other)
  await proxyCall(ctx, proxy, ctx.system.registry, roleRegistryAbi, 'register', [2], parseEther('2'))
  return proxy
}

/** Drives a SHORTFALL_TASK solved by the solver and verified by `proxy` to Verified (rejected). */
async function proxyVerifiedRejection(ctx: Chain, proxy: Proxy): Promise<bigint> {
  const {shortfall: _, ...task} = SHORTFALL_TASK
  const {id} = await submitTask(ctx, task)
  await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id])
  await marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, 3])
  await ctx.test.mine({blocks: 1})
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'claimVerification', [id])
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'postVerdict', [id, false, proof.report, proof.distance])
  return id
}
