import assert from 'node:assert/strict'

import {type Address, encodeErrorResult, encodeFunctionData, parseEther, zeroAddress, zeroHash} from 'viem'

import {defaultProtocolParams} from '../../src/chain/deployContracts.js'
import {roleRegistryAbi, solverBookAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  bookWrite,
  type Chain,
  configWrite,
  expectEvents,
  expectNetFlows,
  expectRevert,
  getTask,
  readTask,
  latestTimestamp,
  marketWrite,
  mineAt,
  registryWrite,
  stakeOf,
  testOffer,
  type TxResult,
  useChain,
} from './helpers/chain.js'
import {
  clearedAttempt,
  commitArgs,
  defaultTask,
  deployProxy,
  driveTask,
  passWindows,
  proof,
  type Proxy,
  proxyCall,
  proxyRead,
  proxySetAcceptEther,
  proxySetReentry,
  registerSolver,
  rejection,
  setMarket,
  setWorkTable,
  Status,
  submitTask,
  taskAt,
  type TaskOptions,
  verdictArgs,
  verifyTask,
} from './helpers/tasks.js'

const ether = parseEther
const STAKE = ether('5')
const SOLVER_STAKE = ether('1')
const VERIFIER_STAKE = ether('0.5')
const {escrow, solverReward, verifierReward} = defaultTask
/** 5% of each fee goes to the jackpot (taxBps 500). */
const SOLVER_TAX = ether('0.125')
const VERIFIER_TAX = ether('0.025')
/**
 * A task whose verifierReward (1.5 ether: 20 % of 750,000 work units at 1e13 wei) exceeds the solver stake (1
 * ether): a rejection pays 0.5 from escrow (9 ether).
 */
const SHORTFALL_TASK = {workUnits: 750_000n, escrow: ether('9'), solverReward: ether('7.5'), verifierReward: ether('1.5'), shortfall: ether('0.5')}

/**
 * Where every wei goes: exact payouts, taxes and stake movements for settlement (accepted, rejected) and the four
 * expiry paths. Every transaction is also checked for conservation by the helpers (tracked balances + contract
 * balances + gas unchanged; registry balance == totalStaked + totalBurned, totalStaked == sum of stakes; market
 * balance == totalEscrow + jackpot).
 */
describe('TaskMarket settlement and expiry accounting (on anvil)', () => {
  const ctx = useChain({stake: STAKE})
  const read = (functionName: 'totalEscrow' | 'jackpot') => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName})
  const readCredit = (account: Address) => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'creditOf', args: [account]})
  const registryRead = (functionName: 'totalStaked' | 'totalBurned') =>
    ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName})
  const wasRejected = (id: bigint, solver: Address) =>
    ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'wasRejected', args: [id, solver]})
  const setParams = (change: Partial<typeof defaultProtocolParams>) =>
    configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, ...change}])

  async function expectStakes(expected: [Address, bigint, bigint][]): Promise<void> {
    for (const [account, freeStake, locked] of expected) {
      const stake = await stakeOf(ctx, account)
      assert.deepEqual({free: stake.free, locked: stake.locked}, {free: freeStake, locked}, `stake of ${account}`)
    }
  }

  describe('settle: an accepted task', () => {
    it('pays each fee less 5% tax into the jackpot, refunds the rest to the submitter and unlocks both stakes', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: true, collect: results})
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, SOLVER_STAKE],
        [verifier.address, STAKE - VERIFIER_STAKE, VERIFIER_STAKE],
      ])
      const stakedBefore = await registryRead('totalStaked')
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      results.push(settled)

      const refund = escrow - solverReward - verifierReward
      expectEvents(settled.events, [
        {
          eventName: 'TaskSettled',
          args: {id, accepted: true, solverPaid: solverReward - SOLVER_TAX, verifierPaid: verifierReward - VERIFIER_TAX, refunded: refund, tax: SOLVER_TAX + VERIFIER_TAX},
        },
        {eventName: 'Unlocked', args: {account: solver.address, amount: SOLVER_STAKE}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows([settled], [
        [solver.address, solverReward - SOLVER_TAX],
        [verifier.address, verifierReward - VERIFIER_TAX],
        [submitter.address, refund],
        [ctx.system.market, -(escrow - SOLVER_TAX - VERIFIER_TAX)],
      ])
      // Over the whole life of the task: the submitter paid exactly the two rewards, the jackpot kept the tax.
      expectNetFlows(results, [
        [submitter.address, -(solverReward + verifierReward)],
        [solver.address, solverReward - SOLVER_TAX],
        [verifier.address, verifierReward - VERIFIER_TAX],
        [ctx.system.market, SOLVER_TAX + VERIFIER_TAX],
        [treasury.address, 0n],
      ])
      await expectStakes([
        [solver.address, STAKE, 0n],
        [verifier.address, STAKE, 0n],
        [treasury.address, 0n, 0n],
      ])
      assert.equal(await registryRead('totalStaked'), stakedBefore)
      assert.equal(await read('totalEscrow'), 0n)
      assert.equal(await read('jackpot'), SOLVER_TAX + VERIFIER_TAX)
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
    })

    for (const [what, taxBps, reward, tax] of [
      ['19 wei at 5% is taxed 0 (rounded down)', 500, 19n, 0n],
      ['20 wei at 5% is taxed 1 wei', 500, 20n, 1n],
      ['a tax of 0 bps takes nothing', 0, ether('1'), 0n],
      ['a tax of 10000 bps takes the whole fee (nothing is sent)', 10000, ether('1'), ether('1')],
    ] as const) {
      it(`tax: ${what}`, async () => {
        await setParams({taxBps})
        // Both rewards `reward`: `reward` work units at 1 wei, a verifier fee of 100 %.
        await setWorkTable(ctx, {maxWorkUnits: 2n ** 64n - 1n})
        await setMarket(ctx, {priceFloor: 1n, initialPrice: 1n, priceCeiling: 1n, verifierFeeBps: 10000, minWorkUnitsPerSecond: 10n ** 18n})
        await bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, testOffer.capacity])
        const id = await taskAt(ctx, 'Verified', {workUnits: reward, maxPrice: 1n, escrow: 2n * reward})
        assert.equal((await getTask(ctx, id)).escrow, 2n * reward)
        await passWindows(ctx, id)
        const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
        expectNetFlows([settled], [
          [ctx.actors.solver.address, reward - tax],
          [ctx.actors.verifier.address, reward - tax],
          [ctx.system.market, -(2n * reward - 2n * tax)],
        ])
        assert.equal(await read('jackpot'), 2n * tax)
      })
    }

    it('fundJackpot adds to the jackpot (anyone, any amount) and taxes add on top', async () => {
      const {other, submitter} = ctx.actors
      const funded = await marketWrite(ctx, other, 'fundJackpot', [], {value: ether('0.3')})
      expectEvents(funded.events, [{eventName: 'JackpotFunded', args: {from: other.address, amount: ether('0.3'), jackpot: ether('0.3')}}])
      expectNetFlows([funded], [
        [other.address, -ether('0.3')],
        [ctx.system.market, ether('0.3')],
      ])
      await marketWrite(ctx, submitter, 'fundJackpot', [], {value: 1n})
      const id = await taskAt(ctx, 'Verified')
      await passWindows(ctx, id)
      await marketWrite(ctx, other, 'settle', [id])
      assert.equal(await read('jackpot'), ether('0.3') + 1n + SOLVER_TAX + VERIFIER_TAX)
      assert.equal(await read('totalEscrow'), 0n)
    })

    it('pays nothing to a zero reward, so a recipient that rejects ether cannot block a zero-reward settlement', async () => {
      // One work unit at 1 wei over 80 steps, stopped early after 40: price * workUnits * 40 / 80 rounds to 0.
      await setMarket(ctx, {priceFloor: 1n, initialPrice: 1n, priceCeiling: 1n})
      const proxy = await proxySolver(ctx, {ask: 1n, capacity: 1})
      const id = await proxyTaskAtVerified(ctx, proxy, {workUnits: 1n, maxPrice: 1n, maxSteps: 80n})
      assert.deepEqual([(await getTask(ctx, id)).solverReward, (await getTask(ctx, id)).verifierReward], [0n, 0n])
      await proxySetAcceptEther(ctx, proxy, false)
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      expectNetFlows([settled], [
        [ctx.actors.submitter.address, 2n],
        [ctx.system.market, -2n],
      ])
      assert.equal((await stakeOf(ctx, proxy.address)).free, ether('2'))
    })

    it('a solver that rejects ether is credited at settlement like anyone; its own withdrawal fails until it names another address', async () => {
      const proxy = await proxySolver(ctx)
      const id = await proxyTaskAtVerified(ctx, proxy)
      await proxySetAcceptEther(ctx, proxy, false)
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      // The default escrow is exactly both rewards: the submitter's refund is 0, so it is not credited.
      const credited = (account: Address, amount: bigint) => ({eventName: 'Credited', args: {account, amount, balance: amount}})
      expectEvents(
        settled.allEvents.filter((event) => event.eventName === 'Credited'),
        [
          credited(proxy.address, solverReward - SOLVER_TAX),
          credited(ctx.actors.verifier.address, verifierReward - VERIFIER_TAX),
        ],
      )
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
      const paid = solverReward - SOLVER_TAX
      await expectRevert(proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'withdraw', [proxy.address]), 'TransferFailed', [proxy.address, paid])
      const before = await ctx.publicClient.getBalance({address: ctx.actors.deployer.address})
      const withdrawn = await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'withdraw', [ctx.actors.deployer.address])
      expectEvents(withdrawn.events, [{eventName: 'CreditWithdrawn', args: {account: proxy.address, to: ctx.actors.deployer.address, amount: paid}}])
      assert.equal(await ctx.publicClient.getBalance({address: ctx.actors.deployer.address}), before + paid)
      assert.equal(await readCredit(proxy.address), 0n)
    })

    it('withdraw: NothingToWithdraw without a credit, ZeroAddress for a zero recipient, and a re-entering withdraw finds nothing', async () => {
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'withdraw', [ctx.actors.other.address]), 'NothingToWithdraw', [ctx.actors.other.address])
      const proxy = await proxySolver(ctx)
      const id = await proxyTaskAtVerified(ctx, proxy)
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'withdraw', [zeroAddress]), 'ZeroAddress')
      await proxySetReentry(ctx, proxy, ctx.system.market, encodeFunctionData({abi: taskMarketAbi, functionName: 'withdraw', args: [proxy.address]}))
      const withdrawn = await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'withdraw', [proxy.address])
      assert.equal(await proxyRead(ctx, proxy, 'reentryAttempted'), true)
      assert.equal(await proxyRead(ctx, proxy, 'lastReentryOk'), false)
      assert.equal(await proxyRead(ctx, proxy, 'lastReentryResult'), encodeErrorResult({abi: taskMarketAbi, errorName: 'NothingToWithdraw', args: [proxy.address]}))
      assert.equal(await ctx.publicClient.getBalance({address: proxy.address}), solverReward - SOLVER_TAX, 'paid once')
      expectNetFlows([withdrawn], [])
    })

  })

  describe('settle: a rejection slashes the solver, makes the submitter whole and reopens the task', () => {
    it('default split (S = 1 ether, verifierReward = 0.5): fee 0.5, then 0.5 split 50/30/20: 0.25 to the verifier, 0.15 to the treasury, 0.1 burned', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      const verified = await getTask(ctx, id)
      assert.equal((await readTask(ctx, id)).distance, proof.distance)
      const stakedBefore = await registryRead('totalStaked')
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      results.push(settled)
      const now = await latestTimestamp(ctx)

      const fee = ether('0.5')
      const [toWinner, toTreasury, burned] = [ether('0.25'), ether('0.15'), ether('0.1')]
      assert.equal(fee + toWinner + toTreasury + burned, SOLVER_STAKE)
      expectEvents(settled.events, [
        {
          eventName: 'TaskRejected',
          args: {id, solver: solver.address, slashed: SOLVER_STAKE, verifierPaid: fee + toWinner, treasuryPaid: toTreasury, burned, fromEscrow: 0n, attempts: 1},
        },
        {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: fee}},
        {eventName: 'StakeSlashed', args: {id, account: solver.address, winner: verifier.address, amount: ether('0.5'), toWinner, toTreasury, burned}},
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: toWinner}},
        {eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: toTreasury}},
        {eventName: 'Burned', args: {from: solver.address, amount: burned}},
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
        [verifier.address, STAKE + fee + toWinner, 0n],
        [treasury.address, toTreasury, 0n],
      ])
      assert.equal(await registryRead('totalStaked'), stakedBefore - burned)
      assert.equal(await registryRead('totalBurned'), burned)
      assert.equal(await read('totalEscrow'), escrow)

      // Reopened: a fresh Submitted task apart from attempts, escrow and the deadline (the submission's fields stay,
      // the attempt's price and rewards are cleared until the next claim).
      const {submittedAt, claimTimeout, trainingTimeout, verificationTimeout, workUnits, maxSteps, maxPrice, parentId, verifierFeeBps} = verified
      const reopened = await getTask(ctx, id)
      assert.deepEqual(reopened, {
        ...(await freshTask(id)),
        submittedAt,
        claimTimeout,
        trainingTimeout,
        verificationTimeout,
        workUnits,
        maxSteps,
        maxPrice,
        parentId,
        verifierFeeBps,
        attempts: 1,
        deadline: now + defaultTask.claimTimeout,
      })
      assert.equal(reopened.escrow, escrow)
      // The spec (not stored: its TaskSubmitted event) stays the task's; the attempt's randomness and report are gone.
      const hashes = await readTask(ctx, id)
      assert.deepEqual([hashes.specHash, hashes.randomness, hashes.reportHash], [defaultTask.specHash, zeroHash, zeroHash])
      assert.equal(await wasRejected(id, solver.address), true)
      assert.equal(await wasRejected(id, verifier.address), false)
    })

    it('an odd remainder is burned: S = 1 ether + 1 wei leaves 0.5 ether + 1 wei to split, the wei is burned', async () => {
      const {solver, verifier, other, treasury} = ctx.actors
      await setParams({solverStake: ether('1') + 1n})
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      expectEvents(settled.events.slice(3, 4), [
        {
          eventName: 'StakeSlashed',
          args: {id, account: solver.address, winner: verifier.address, amount: ether('0.5') + 1n, toWinner: ether('0.25'), toTreasury: ether('0.15'), burned: ether('0.1') + 1n},
        },
      ])
      expectNetFlows([settled], [])
      assert.equal((await stakeOf(ctx, verifier.address)).free, STAKE + ether('0.75'))
      assert.equal((await stakeOf(ctx, treasury.address)).free, ether('0.15'))
      assert.equal(await registryRead('totalBurned'), ether('0.1') + 1n)
    })

    for (const [what, solverStake, split] of [
      ['S == verifierReward: all of it is the fee, nothing to split (no StakeSlashed)', ether('0.5'), undefined],
      ['S == verifierReward + 1 wei: the wei is burned', ether('0.5') + 1n, [0n, 0n, 1n]],
      ['S == verifierReward + 10 wei: 5 to the verifier, 3 to the treasury, 2 burned', ether('0.5') + 10n, [5n, 3n, 2n]],
    ] as const) {
      it(what, async () => {
        const {solver, verifier, other, treasury} = ctx.actors
        await setParams({solverStake})
        const id = await taskAt(ctx, 'Verified', {accepted: false})
        await passWindows(ctx, id)
        const settled = await marketWrite(ctx, other, 'settle', [id])
        const now = await latestTimestamp(ctx)
        const [toWinner, toTreasury, burned] = split ?? [0n, 0n, 0n]
        expectEvents(settled.events, [
          {
            eventName: 'TaskRejected',
            args: {id, solver: solver.address, slashed: solverStake, verifierPaid: verifierReward + toWinner, treasuryPaid: toTreasury, burned, fromEscrow: 0n, attempts: 1},
          },
          {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
          {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: verifierReward}},
          ...(split
            ? [
                {eventName: 'StakeSlashed', args: {id, account: solver.address, winner: verifier.address, amount: solverStake - verifierReward, toWinner, toTreasury, burned}},
                ...(toWinner ? [{eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: toWinner}}] : []),
                ...(toTreasury ? [{eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: toTreasury}}] : []),
                {eventName: 'Burned', args: {from: solver.address, amount: burned}},
              ]
            : []),
          {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
        ])
        expectNetFlows([settled], [])
        assert.equal((await getTask(ctx, id)).escrow, escrow)
      })
    }

    it('S < verifierReward: the stake pays what it can, the escrow the shortfall (in ether, TaskRejected.fromEscrow); the next claim fixes the rewards again', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      const solverStake = ether('0.2')
      const shortfall = verifierReward - solverStake
      await setParams({solverStake})
      await registerSolver(ctx, other, ether('1'))
      const results: TxResult[] = []
      // Escrowed above the minimum (4 ether, the rest is refunded) so that it still covers both rewards after the shortfall.
      const escrow = ether('4')
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results, escrow})
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      results.push(settled)
      const now = await latestTimestamp(ctx)
      expectEvents(settled.events, [
        {eventName: 'TaskRejected', args: {id, solver: solver.address, slashed: solverStake, verifierPaid: verifierReward, treasuryPaid: 0n, burned: 0n, fromEscrow: shortfall, attempts: 1}},
        {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
        {eventName: 'Slashed', args: {from: solver.address, to: verifier.address, amount: solverStake}},
        {eventName: 'Unlocked', args: {account: verifier.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows([settled], [
        [verifier.address, shortfall],
        [ctx.system.market, -shortfall],
      ])
      const reopened = await getTask(ctx, id)
      assert.equal(reopened.escrow, escrow - shortfall)
      assert.deepEqual([reopened.price, reopened.solverReward, reopened.verifierReward], [0n, 0n, 0n])
      assert.equal(await read('totalEscrow'), escrow - shortfall)
      assert.equal((await stakeOf(ctx, verifier.address)).free, STAKE + solverStake)
      assert.equal((await stakeOf(ctx, treasury.address)).free, 0n)

      // 3.7 ether still covers both rewards: the next attempt is accepted and the refund is what is left.
      await driveTask(ctx, id, 'Claimed', {solver: other, collect: results})
      const reclaimed = await getTask(ctx, id)
      assert.deepEqual([reclaimed.price, reclaimed.solverReward, reclaimed.verifierReward], [defaultTask.price, solverReward, verifierReward])
      await ctx.test.mine({blocks: 1})
      results.push(await marketWrite(ctx, other, 'commitProof', commitArgs(id)))
      await verifyTask(ctx, id, 'Verified', {verifier: verifier2, collect: results})
      await passWindows(ctx, id)
      const accepted = await marketWrite(ctx, ctx.actors.deployer, 'settle', [id])
      results.push(accepted)
      expectEvents(accepted.events.slice(0, 1), [
        {
          eventName: 'TaskSettled',
          args: {
            id,
            accepted: true,
            solverPaid: solverReward - SOLVER_TAX,
            verifierPaid: verifierReward - VERIFIER_TAX,
            refunded: escrow - shortfall - solverReward - verifierReward,
            tax: SOLVER_TAX + VERIFIER_TAX,
          },
        },
      ])
      // Over the task's life the submitter paid both rewards plus the shortfall, and nothing else.
      expectNetFlows(results, [
        [submitter.address, -(solverReward + verifierReward + shortfall)],
        [verifier.address, shortfall],
        [verifier2.address, verifierReward - VERIFIER_TAX],
        [other.address, solverReward - SOLVER_TAX],
        [ctx.system.market, SOLVER_TAX + VERIFIER_TAX],
      ])
    })

    it('S == 0: the whole verifierReward comes from the escrow and nothing is slashed', async () => {
      const {solver, verifier, other} = ctx.actors
      await setParams({solverStake: 0n})
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, other, 'settle', [id])
      assert.deepEqual(
        settled.events.map((event) => event.eventName),
        ['TaskRejected', 'TaskReopened', 'Unlocked'],
      )
      expectEvents(settled.events.slice(0, 1), [
        {eventName: 'TaskRejected', args: {id, solver: solver.address, slashed: 0n, verifierPaid: verifierReward, treasuryPaid: 0n, burned: 0n, fromEscrow: verifierReward, attempts: 1}},
      ])
      expectNetFlows([settled], [
        [verifier.address, verifierReward],
        [ctx.system.market, -verifierReward],
      ])
    })

    it('stakes are snapshotted: a config change after the claims slashes and unlocks exactly what was locked', async () => {
      const {solver, verifier, other, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await setParams({solverStake: ether('3'), verifierStake: ether('2')})
      await passWindows(ctx, id)
      await marketWrite(ctx, other, 'settle', [id])
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, 0n],
        [verifier.address, STAKE + ether('0.75'), 0n],
        [treasury.address, ether('0.15'), 0n],
      ])
      // And an accepted one unlocks the old amounts.
      await setParams({})
      const accepted = await taskAt(ctx, 'Verified', {solver: ctx.actors.solver, verifier: ctx.actors.verifier2})
      await setParams({solverStake: 1n, verifierStake: 1n})
      await passWindows(ctx, accepted)
      await marketWrite(ctx, other, 'settle', [accepted])
      assert.equal((await stakeOf(ctx, solver.address)).locked, 0n)
      assert.equal((await stakeOf(ctx, ctx.actors.verifier2.address)).locked, 0n)
    })

    it('the next solver starts on a fresh claim deadline (even past the original one) and, if accepted, the submitter has paid exactly the two rewards', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      await registerSolver(ctx, other, STAKE)
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      const originalClaimDeadline = (await getTask(ctx, id)).submittedAt + defaultTask.claimTimeout
      await advanceTime(ctx, defaultTask.claimTimeout + 50n)
      await passWindows(ctx, id)
      results.push(await marketWrite(ctx, verifier2, 'settle', [id]))
      const {deadline} = await getTask(ctx, id)
      assert.ok(deadline > originalClaimDeadline + 50n)
      assert.ok((await latestTimestamp(ctx)) > originalClaimDeadline)

      // verifier2 verifies the second attempt: a rejected attempt's verifier may verify again, but need not.
      await driveTask(ctx, id, 'Verified', {solver: other, verifier: verifier2, accepted: true, collect: results})
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, verifier, 'settle', [id])
      results.push(settled)
      expectEvents(settled.events, [
        {
          eventName: 'TaskSettled',
          args: {
            id,
            accepted: true,
            solverPaid: solverReward - SOLVER_TAX,
            verifierPaid: verifierReward - VERIFIER_TAX,
            refunded: escrow - solverReward - verifierReward,
            tax: SOLVER_TAX + VERIFIER_TAX,
          },
        },
        {eventName: 'Unlocked', args: {account: other.address, amount: SOLVER_STAKE}},
        {eventName: 'Unlocked', args: {account: verifier2.address, amount: VERIFIER_STAKE}},
      ])
      expectNetFlows(results, [
        [submitter.address, -(solverReward + verifierReward)],
        [other.address, solverReward - SOLVER_TAX],
        [verifier2.address, verifierReward - VERIFIER_TAX],
        [verifier.address, 0n],
        [solver.address, 0n],
        [ctx.system.market, SOLVER_TAX + VERIFIER_TAX],
      ])
      const task = await getTask(ctx, id)
      assert.equal(task.status, Status.Settled)
      assert.equal(task.attempts, 1)
      await expectStakes([
        [solver.address, STAKE - SOLVER_STAKE, 0n],
        [verifier.address, STAKE + ether('0.75'), 0n],
        [treasury.address, ether('0.15'), 0n],
        [other.address, STAKE, 0n],
        [verifier2.address, STAKE, 0n],
      ])
      assert.equal(await read('totalEscrow'), 0n)
    })

    it('a reopened task nobody claims expires after its fresh deadline with the whole escrow refunded', async () => {
      const {submitter, other} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      await passWindows(ctx, id)
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
      assert.equal(await read('totalEscrow'), 0n)
    })

    it('a task exhausted by shortfalls cannot be claimed, and expires with what is left', async () => {
      const {submitter, verifier, other} = ctx.actors
      await registerSolver(ctx, other, STAKE)
      // verifierReward 1.5 > S = 1: the rejection takes 0.5 ether of the 9 escrowed; 8.5 no longer covers 7.5 + 1.5.
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {workUnits: SHORTFALL_TASK.workUnits, accepted: false, collect: results})
      await passWindows(ctx, id)
      results.push(await marketWrite(ctx, other, 'settle', [id]))
      await expectRevert(marketWrite(ctx, other, 'claimTask', [id, zeroHash]), 'EscrowExhausted', [id, ether('8.5'), ether('9')])
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      results.push(expired)
      expectEvents(expired.events, [{eventName: 'TaskExpired', args: {id, fromStatus: Status.Submitted, refunded: ether('8.5')}}])
      expectNetFlows(results, [
        [submitter.address, -ether('0.5')],
        [verifier.address, ether('0.5')],
        [ctx.system.market, 0n],
      ])
      assert.equal((await stakeOf(ctx, verifier.address)).free, STAKE + SOLVER_STAKE)
      assert.equal(await read('totalEscrow'), 0n)
    })

    it('two rejections: attempts counts them and both solvers are barred from the task', async () => {
      const {solver, verifier, verifier2, other} = ctx.actors
      await registerSolver(ctx, other, STAKE)
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await passWindows(ctx, id)
      await marketWrite(ctx, verifier2, 'settle', [id])
      await driveTask(ctx, id, 'Verified', {solver: other, verifier: verifier2, accepted: false})
      await passWindows(ctx, id)
      const second = await marketWrite(ctx, verifier, 'settle', [id])
      expectEvents(second.events.slice(0, 1), [
        {
          eventName: 'TaskRejected',
          args: {id, solver: other.address, slashed: SOLVER_STAKE, verifierPaid: ether('0.75'), treasuryPaid: ether('0.15'), burned: ether('0.1'), fromEscrow: 0n, attempts: 2},
        },
      ])
      assert.equal((await getTask(ctx, id)).attempts, 2)
      for (const barred of [solver, other]) {
        assert.equal(await wasRejected(id, barred.address), true)
        await expectRevert(marketWrite(ctx, barred, 'claimTask', [id, zeroHash]), 'SolverRejected', [id, barred.address])
      }
      assert.equal(await read('totalEscrow'), escrow)
    })

    it('a submitter that rejects ether cannot block a rejection: it is paid nothing', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      const submitted = await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'submitTask', [defaultTask.specHash, defaultTask.workUnits, defaultTask.maxSteps, defaultTask.maxPrice, 0n], escrow)
      const id = submitted.events.find((event) => event.eventName === 'TaskSubmitted')!.args.id as bigint
      await driveTask(ctx, id, 'Verified', {accepted: false})
      await proxySetAcceptEther(ctx, proxy, false)
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      expectNetFlows([settled], [])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
    })

    it('a verifier owed a shortfall that rejects ether is credited it: the rejection goes through', async () => {
      const proxy = await proxyVerifier(ctx)
      const id = await proxyVerifiedRejection(ctx, proxy)
      await proxySetAcceptEther(ctx, proxy, false)
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
      expectNetFlows([settled], [
        [proxy.address, SHORTFALL_TASK.shortfall],
        [ctx.system.market, -SHORTFALL_TASK.shortfall],
      ])
      assert.equal(await readCredit(proxy.address), SHORTFALL_TASK.shortfall)
      assert.equal(await read('totalEscrow'), SHORTFALL_TASK.escrow - SHORTFALL_TASK.shortfall)
    })

    it('after a rejection and an expiry everyone withdraws everything: the market ends empty, the registry holds only what was burned', async () => {
      const {submitter, solver, verifier, verifier2, other, treasury} = ctx.actors
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Verified', {accepted: false, collect: results})
      await passWindows(ctx, id)
      results.push(await marketWrite(ctx, other, 'settle', [id]))
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      results.push(await marketWrite(ctx, other, 'expire', [id]))
      for (const account of [solver, verifier, verifier2, treasury]) {
        const {free: amount} = await stakeOf(ctx, account.address)
        results.push(await registryWrite(ctx, account, 'requestUnbond', [amount]))
      }
      await advanceTime(ctx, ctx.params.unbondingDelay)
      for (const account of [solver, verifier, verifier2, treasury]) results.push(await registryWrite(ctx, account, 'withdraw', []))
      results.push(await marketWrite(ctx, submitter, 'withdraw', [submitter.address]))

      assert.equal(await ctx.publicClient.getBalance({address: ctx.system.registry}), ether('0.1'))
      assert.equal(await registryRead('totalBurned'), ether('0.1'))
      assert.equal(await ctx.publicClient.getBalance({address: ctx.system.market}), 0n)
      assert.equal(await registryRead('totalStaked'), 0n)
      // Registration deposits happened before this test, so withdrawals return them: net of the stake itself.
      expectNetFlows(results, [
        [submitter.address, 0n],
        [solver.address, STAKE - SOLVER_STAKE],
        [verifier.address, STAKE + ether('0.75')],
        [verifier2.address, STAKE],
        [treasury.address, ether('0.15')],
        [ctx.system.registry, -(3n * STAKE) + ether('0.1')],
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
      assert.equal(await read('totalEscrow'), 0n)
    })

    it('Claimed (no proof in time): a training timeout, not an expiry: 25 % of the solver stake slashed with no winner (80 % of it to the treasury, 20 % burned), the rest unlocked, the escrow kept and the task reopened', async () => {
      const {solver, other, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Claimed')
      const stakedBefore = await registryRead('totalStaked')
      await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
      const timedOut = await marketWrite(ctx, other, 'expire', [id])
      const now = await latestTimestamp(ctx)
      const slashed = ether('0.25')
      expectEvents(timedOut.events, [
        {eventName: 'ClaimTimedOut', args: {id, solver: solver.address, slashed}},
        {eventName: 'TaskReopened', args: {id, claimDeadline: now + defaultTask.claimTimeout}},
        {eventName: 'StakeSlashed', args: {id, account: solver.address, winner: zeroAddress, amount: slashed, toWinner: 0n, toTreasury: ether('0.2'), burned: ether('0.05')}},
        {eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: ether('0.2')}},
        {eventName: 'Burned', args: {from: solver.address, amount: ether('0.05')}},
        {eventName: 'Unlocked', args: {account: solver.address, amount: SOLVER_STAKE - slashed}},
      ])
      expectNetFlows([timedOut], [])
      await expectStakes([
        [solver.address, STAKE - slashed, 0n],
        [treasury.address, ether('0.2'), 0n],
      ])
      assert.equal(await registryRead('totalStaked'), stakedBefore - ether('0.05'))
      const task = await getTask(ctx, id)
      assert.deepEqual([task.status, task.attempts, task.escrow, task.solver], [Status.Submitted, 1, escrow, zeroAddress])
      assert.equal(await read('totalEscrow'), escrow)
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

    it('Verifying (no verdict in time): escrow refunded, solver stake unlocked, verifier stake slashed with no winner', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const id = await taskAt(ctx, 'Verifying')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const expired = await marketWrite(ctx, other, 'expire', [id])
      expectEvents(expired.events, [
        {eventName: 'TaskExpired', args: {id, fromStatus: Status.Verifying, refunded: escrow}},
        {eventName: 'Unlocked', args: {account: solver.address, amount: SOLVER_STAKE}},
        {eventName: 'StakeSlashed', args: {id, account: verifier.address, winner: zeroAddress, amount: VERIFIER_STAKE, toWinner: 0n, toTreasury: ether('0.4'), burned: ether('0.1')}},
        {eventName: 'Slashed', args: {from: verifier.address, to: treasury.address, amount: ether('0.4')}},
        {eventName: 'Burned', args: {from: verifier.address, amount: ether('0.1')}},
      ])
      expectNetFlows([expired], [
        [submitter.address, escrow],
        [ctx.system.market, -escrow],
      ])
      await expectStakes([
        [solver.address, STAKE, 0n],
        [verifier.address, STAKE - VERIFIER_STAKE, 0n],
        [treasury.address, ether('0.4'), 0n],
      ])
    })

    it('expire uses the snapshotted stakes after a config change', async () => {
      const {solver, verifier, other} = ctx.actors
      const id = await taskAt(ctx, 'Verifying')
      await setParams({solverStake: ether('4'), verifierStake: ether('4')})
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      await marketWrite(ctx, other, 'expire', [id])
      await expectStakes([
        [solver.address, STAKE, 0n],
        [verifier.address, STAKE - VERIFIER_STAKE, 0n],
      ])
    })

    it('a submitter that rejects ether still lets its task expire: the escrow is credited to it', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'submitTask', [defaultTask.specHash, defaultTask.workUnits, defaultTask.maxSteps, defaultTask.maxPrice, 0n], escrow)
      await proxySetAcceptEther(ctx, proxy, false)
      await advanceTime(ctx, 101)
      const expired = await marketWrite(ctx, ctx.actors.other, 'expire', [1n])
      expectNetFlows([expired], [
        [proxy.address, escrow],
        [ctx.system.market, -escrow],
      ])
      assert.equal(await readCredit(proxy.address), escrow)
    })

  })

  it('many tasks at once: totalEscrow is the sum of the live escrows and each task settles independently', async () => {
    const {other} = ctx.actors
    const a = await taskAt(ctx, 'Verified', {escrow: ether('3')})
    const b = await taskAt(ctx, 'Claimed', {escrow: ether('4'), solver: ctx.actors.solver})
    const {id: c} = await submitTask(ctx, {escrow: ether('7')})
    assert.equal(await read('totalEscrow'), ether('14'))
    await expectStakes([[ctx.actors.solver.address, STAKE - 2n * SOLVER_STAKE, 2n * SOLVER_STAKE]])
    await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
    await passWindows(ctx, a)
    await marketWrite(ctx, other, 'settle', [a])
    assert.equal(await read('totalEscrow'), ether('11'))
    // b's claim times out: it reopens with its escrow; c was never claimed: it expires.
    await marketWrite(ctx, other, 'expire', [b])
    assert.equal(await read('totalEscrow'), ether('11'))
    await marketWrite(ctx, other, 'expire', [c])
    assert.equal(await read('totalEscrow'), ether('4'))
    await advanceTime(ctx, defaultTask.claimTimeout + 1n)
    await marketWrite(ctx, other, 'expire', [b])
    assert.equal(await read('totalEscrow'), 0n)
    await expectStakes([[ctx.actors.solver.address, STAKE - ether('0.25'), 0n]])
  })

  /** getTask of a Submitted task with every attempt field cleared (for comparing a reopened one). */
  async function freshTask(id: bigint) {
    const task = await getTask(ctx, id)
    return {
      ...task,
      status: Status.Submitted,
      ...clearedAttempt,
    }
  }
})

/** A ProxyActor registered as a solver with 2 ether of stake and an offer (`testOffer`'s ask for the 2 tasks its stake backs unless given). */
async function proxySolver(ctx: Chain, offer: {ask: bigint; capacity: number} = {ask: testOffer.ask, capacity: 2}): Promise<Proxy> {
  const proxy = await deployProxy(ctx, ctx.actors.other)
  await proxyCall(ctx, proxy, ctx.system.registry, roleRegistryAbi, 'register', [1], parseEther('2'))
  await proxyCall(ctx, proxy, ctx.system.book, solverBookAbi, 'setOffer', [offer.ask, offer.capacity])
  return proxy
}

/** Drives a task solved by `proxy` to Verified (accepted); it commits the default proof (40 steps). */
async function proxyTaskAtVerified(ctx: Chain, proxy: Proxy, options: TaskOptions = {}): Promise<bigint> {
  const {id} = await submitTask(ctx, options)
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'claimTask', [id, zeroHash])
  await ctx.test.mine({blocks: 1})
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'commitProof', commitArgs(id))
  await ctx.test.mine({blocks: 1})
  await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
  await marketWrite(ctx, ctx.actors.verifier, 'postVerdict', verdictArgs(id, true))
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
  const {id} = await submitTask(ctx, {workUnits: SHORTFALL_TASK.workUnits, escrow: SHORTFALL_TASK.escrow})
  await driveTask(ctx, id, 'Committed')
  await ctx.test.mine({blocks: 1})
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'claimVerification', [id])
  await proxyCall(ctx, proxy, ctx.system.market, taskMarketAbi, 'postVerdict', verdictArgs(id, false, {segment: rejection.segment}))
  return id
}
