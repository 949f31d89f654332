import assert from 'node:assert/strict'

import {type Address, encodeErrorResult, encodeFunctionData, parseEther} from 'viem'

import {deployContracts} from '../../src/chain/deployContracts.js'
import {roleRegistryAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  type Chain,
  expectEvents,
  expectNetFlows,
  expectRevert,
  getTask,
  marketWrite,
  registryWrite,
  stakeOf,
  type TxResult,
  useChain,
} from './helpers/chain.js'
import {
  defaultTask,
  deployProxy,
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

    it('rejected: verifier gets verifierReward and half the solver stake, treasury the other half, submitter the rest', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      const stakedBefore = await totalStaked()
      await advanceTime(ctx, 6)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      results.push(settled)

      const refund = escrow - verifierReward
      const half = SOLVER_STAKE / 2n
      expectEvents(settled.events, [
        {eventName: 'TaskSettled', args: {id, accepted: false, solverPaid: 0n, verifierPaid: verifierReward, refunded: refund}},
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: half}},
        {eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: SOLVER_STAKE - half}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows([settled], [
        [verifier.address, verifierReward],
        [submitter.address, refund],
        [ctx.system.market, -escrow],
      ])
      expectNetFlows(results, [
        [submitter.address, -verifierReward],
        [verifier.address, verifierReward],
      ])
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, 0n],
        [verifier.address, STAKE + half, 0n],
        [treasury.address, SOLVER_STAKE - half, 0n],
      ])
      assert.equal(await totalStaked(), stakedBefore, 'slashing moves stake inside the registry only')
      assert.equal(await totalEscrow(), 0n)
    })

    it('rejected with an odd solver stake: the verifier gets the half rounded down, the treasury the rest', async () => {
      const {solver, verifier, submitter, other, treasury} = ctx.actors
      const oddStake = ether('1') + 1n
      const deployed = await deployContracts({
        publicClient: ctx.publicClient,
        walletClient: ctx.actors.deployer.wallet,
        params: {treasury: treasury.address, solverStake: oddStake, verifierStake: 3n, challengeWindow: 1n},
      })
      const system = {registry: deployed.registry, market: deployed.market}
      ctx.systems.push(system)
      await registryWrite(ctx, solver, 'register', [1], {value: ether('2'), address: system.registry})
      await registryWrite(ctx, verifier, 'register', [2], {value: 3n, address: system.registry})
      const id = await taskAt(ctx, 'Verified', {accepted: false, market: system.market})
      await advanceTime(ctx, 2)
      const settled = await marketWrite(ctx, other, 'settle', [id], {address: system.market})
      expectNetFlows([settled], [
        [verifier.address, verifierReward],
        [submitter.address, escrow - verifierReward],
        [system.market, -escrow],
      ])
      assert.equal((await stakeOf(ctx, verifier.address, system.registry)).free, 3n + ether('0.5'))
      assert.equal((await stakeOf(ctx, treasury.address, system.registry)).free, ether('0.5') + 1n)
      assert.deepEqual(await stakeOf(ctx, solver.address, system.registry), {free: ether('2') - oddStake, locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('after a rejected task everyone withdraws everything: the contracts end empty and each account nets exactly its share', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      await advanceTime(ctx, 6)
      results.push(await marketWrite(ctx, other, 'settle', [id]))
      for (const account of [solver, verifier, verifier2, treasury]) {
        const {free: amount} = await stakeOf(ctx, account.address)
        results.push(await registryWrite(ctx, account, 'requestUnbond', [amount]))
      }
      await advanceTime(ctx, ctx.params.unbondingDelay)
      for (const account of [solver, verifier, verifier2, treasury]) results.push(await registryWrite(ctx, account, 'withdraw', []))

      assert.equal(await ctx.publicClient.getBalance({address: ctx.system.registry}), 0n)
      assert.equal(await ctx.publicClient.getBalance({address: ctx.system.market}), 0n)
      assert.equal(await totalStaked(), 0n)
      const half = SOLVER_STAKE / 2n
      // Registration deposits happened before this test, so withdrawals return them: net of the stake itself.
      expectNetFlows(results, [
        [submitter.address, -verifierReward],
        [solver.address, STAKE - SOLVER_STAKE],
        [verifier.address, verifierReward + STAKE + half],
        [verifier2.address, STAKE],
        [treasury.address, SOLVER_STAKE - half],
        [ctx.system.registry, -(3n * STAKE)],
      ])
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

    it('reverts TransferFailed(submitter, refund) when the submitter rejects its refund', async () => {
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
      await marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, false, proof.report])
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 6)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'TransferFailed', [proxy.address, escrow - verifierReward])
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
  await marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, true, proof.report])
  return id
}
