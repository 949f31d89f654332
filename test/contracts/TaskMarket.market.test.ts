import assert from 'node:assert/strict'

import {parseEther, zeroAddress, zeroHash} from 'viem'

import {solverBookAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  bookWrite,
  expectEvents,
  expectNetFlows,
  expectRevert,
  getTask,
  latestTimestamp,
  marketWrite,
  stakeOf,
  TEST_PRICE,
  type TxResult,
  useChain,
} from './helpers/chain.js'
import {
  childProof,
  commitArgs,
  defaultSecret,
  defaultTask,
  driveTask,
  escrowOf,
  makeProof,
  passWindows,
  type Proof,
  secretHashOf,
  setMarket,
  startOf,
  Status,
  submitTask,
  taskAt,
  verifyTask,
} from './helpers/tasks.js'

const ether = parseEther
/** 5 % tax on each fee (taxBps 500). */
const tax = (amount: bigint) => (amount * 500n) / 10000n

/**
 * The market of docs/market.md on the TaskMarket: escrow and refunds for the work performed (early stop), the price
 * fixed at the claim, split jobs (parent gating and stacked proofs), training timeouts and the expiry of a child
 * whose parent cannot finish. Every transaction is checked for conservation, and the book's demand and active
 * counts against the market's tasks, by the helpers.
 */
describe('TaskMarket market: work, prices, split jobs and timeouts (on anvil)', () => {
  const ctx = useChain({stake: ether('10'), disputeActors: true})
  const read = (functionName: 'totalEscrow' | 'jackpot') => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName})
  const settle = (id: bigint) => marketWrite(ctx, ctx.actors.other, 'settle', [id])

  describe('early stop: paid for the steps trained, the rest refunded to the wei', () => {
    for (const [what, workUnits, totalSteps, count, interval] of [
      ['half the range (20 of 40 steps)', 250_000n, 20n, 3, 10n],
      ['a range that does not divide (13 of 40 steps, 7 work units: the rewards round down)', 7n, 13n, 3, 10n],
      ['the whole range (40 of 40)', 250_000n, 40n, 5, 10n],
    ] as const) {
      it(`${what}`, async () => {
        const {submitter, solver, verifier} = ctx.actors
        const results: TxResult[] = []
        const published = makeProof(`stop ${totalSteps}`, {count, interval, totalSteps})
        const escrow = escrowOf(workUnits, TEST_PRICE)
        const id = await taskAt(ctx, 'Verified', {workUnits, published, collect: results})
        const solverReward = (TEST_PRICE * workUnits * totalSteps) / 40n
        const verifierReward = (solverReward * 2000n) / 10000n
        const task = await getTask(ctx, id)
        assert.deepEqual([task.totalSteps, task.solverReward, task.verifierReward], [totalSteps, solverReward, verifierReward])
        await passWindows(ctx, id)
        const settled = await settle(id)
        results.push(settled)
        const refunded = escrow - solverReward - verifierReward
        expectEvents(settled.events.slice(0, 1), [
          {
            eventName: 'TaskSettled',
            args: {
              id,
              accepted: true,
              solverPaid: solverReward - tax(solverReward),
              verifierPaid: verifierReward - tax(verifierReward),
              refunded,
              tax: tax(solverReward) + tax(verifierReward),
            },
          },
        ])
        // The submitter paid exactly the rewards of the work performed: escrow - refund.
        expectNetFlows(results, [
          [submitter.address, -(solverReward + verifierReward)],
          [solver.address, solverReward - tax(solverReward)],
          [verifier.address, verifierReward - tax(verifierReward)],
          [ctx.system.market, tax(solverReward) + tax(verifierReward)],
        ])
        assert.equal(await read('totalEscrow'), 0n)
      })
    }
  })

  describe('the price is fixed at the claim', () => {
    it('a moving price: the claim takes the price of its block (TaskClaimed.price), later moves change nothing, and the margin under maxPrice is refunded', async () => {
      const {solver} = ctx.actors
      // The controller on (floor 1e11, ceiling 1e16); the solvers ask the floor.
      await setMarket(ctx, {priceFloor: 10n ** 11n, priceCeiling: 10n ** 16n, priceEpochBlocks: 2})
      for (const s of [solver, ctx.extra.solver2]) await bookWrite(ctx, s, 'setOffer', [10n ** 11n, 5])
      const maxPrice = 4n * TEST_PRICE
      const {id} = await submitTask(ctx, {maxPrice})
      await ctx.test.mine({blocks: 7})
      const quoted = await ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName: 'currentPrice'})
      const claimed = await marketWrite(ctx, solver, 'claimTask', [id, secretHashOf(defaultSecret)])
      const price = claimed.events.find((e) => e.eventName === 'TaskClaimed')!.args.price as bigint
      const stored = await ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName: 'storedPrice'})
      assert.equal(price, stored, 'the claim pays the book\'s price of its block')
      assert.ok(price < TEST_PRICE && price <= quoted, `a low utilisation lowered the price (${price})`)
      // More demand, more blocks: the book's price moves, the task's does not.
      for (let i = 0; i < 3; i++) await submitTask(ctx, {maxPrice})
      await ctx.test.mine({blocks: 10})
      await marketWrite(ctx, solver, 'commitProof', commitArgs(id))
      await verifyTask(ctx, id, 'Verified')
      const now = await ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName: 'currentPrice'})
      assert.notEqual(now, price, 'the book moved on')
      const task = await getTask(ctx, id)
      const solverReward = price * defaultTask.workUnits
      assert.deepEqual([task.price, task.solverReward, task.verifierReward], [price, solverReward, solverReward / 5n])
      await passWindows(ctx, id)
      const settled = await settle(id)
      const escrow = escrowOf(defaultTask.workUnits, maxPrice)
      expectEvents(settled.events.slice(0, 1), [
        {
          eventName: 'TaskSettled',
          args: {
            id,
            accepted: true,
            solverPaid: solverReward - tax(solverReward),
            verifierPaid: solverReward / 5n - tax(solverReward / 5n),
            refunded: escrow - solverReward - solverReward / 5n,
            tax: tax(solverReward) + tax(solverReward / 5n),
          },
        },
      ])
      assert.equal(await stakeOf(ctx, solver.address).then((s) => s.locked), 0n)
    })
  })

  describe('split jobs: a task with a parent', () => {
    const parentProof = makeProof('part 1')
    const secondProof = childProof(parentProof, 'part 2')
    const thirdProof = childProof(secondProof, 'part 3')

    /** Drives task `id` (by `solver`) from Submitted to Settled, committing `published` stacked with `start`. */
    async function finish(id: bigint, published: Proof, start: ReturnType<typeof startOf> | undefined, collect: TxResult[], solver = ctx.extra.solver2): Promise<void> {
      await driveTask(ctx, id, 'Verified', {solver, published, start, collect})
      await passWindows(ctx, id)
      collect.push(await settle(id))
      assert.equal((await getTask(ctx, id)).status, Status.Settled)
    }

    it('three tasks submitted together stack: each is claimable once its parent settled with its whole range, and commits its parent\'s last checkpoint as its first', async () => {
      const {submitter} = ctx.actors
      const results: TxResult[] = []
      const first = await submitTask(ctx)
      const second = await submitTask(ctx, {parentId: first.id})
      const third = await submitTask(ctx, {parentId: second.id})
      results.push(first.result, second.result, third.result)
      expectEvents(third.result.events, [
        {
          eventName: 'TaskSubmitted',
          args: {
            id: third.id,
            submitter: submitter.address,
            specHash: defaultTask.specHash,
            escrow: defaultTask.escrow,
            workUnits: defaultTask.workUnits,
            maxSteps: defaultTask.maxSteps,
            maxPrice: defaultTask.maxPrice,
            parentId: second.id,
          },
        },
      ])
      assert.equal((await getTask(ctx, third.id)).parentId, second.id)
      await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [second.id, zeroHash]), 'ParentNotSettled', [second.id, first.id])

      await finish(first.id, parentProof, undefined, results, ctx.actors.solver)
      await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [third.id, zeroHash]), 'ParentNotSettled', [third.id, second.id])
      await finish(second.id, secondProof, startOf(parentProof, secondProof), results)
      await finish(third.id, thirdProof, startOf(secondProof, thirdProof), results)
      const reward = defaultTask.solverReward + defaultTask.verifierReward
      expectNetFlows(results, [
        [submitter.address, -3n * reward],
        [ctx.actors.solver.address, defaultTask.solverReward - tax(defaultTask.solverReward)],
        [ctx.extra.solver2.address, 2n * (defaultTask.solverReward - tax(defaultTask.solverReward))],
        [ctx.actors.verifier.address, 3n * (defaultTask.verifierReward - tax(defaultTask.verifierReward))],
        [ctx.system.market, 3n * (tax(defaultTask.solverReward) + tax(defaultTask.verifierReward))],
      ])
    })

    it('a child waits for its parent past its own claim deadline, and gets claimTimeout from the parent\'s settlement', async () => {
      const parent = await taskAt(ctx, 'Verified', {published: parentProof})
      const {id: child} = await submitTask(ctx, {parentId: parent})
      await advanceTime(ctx, defaultTask.claimTimeout * 3n)
      await passWindows(ctx, parent)
      await settle(parent)
      const settledAt = await latestTimestamp(ctx)
      assert.equal((await getTask(ctx, parent)).deadline, settledAt, 'a settled task records its settlement time')
      await advanceTime(ctx, defaultTask.claimTimeout - 5n)
      await marketWrite(ctx, ctx.extra.solver2, 'claimTask', [child, zeroHash])
      assert.equal((await getTask(ctx, child)).status, Status.Claimed)
    })

    for (const how of ['expired unclaimed', 'settled after an early stop'] as const) {
      it(`a child whose parent ${how} can be expired at once, refunding its whole escrow`, async () => {
        const {submitter, other} = ctx.actors
        const early = makeProof('stopped early', {count: 3, interval: 10n, totalSteps: 20n})
        const parent = how === 'expired unclaimed' ? (await submitTask(ctx)).id : await taskAt(ctx, 'Verified', {published: early})
        const results: TxResult[] = []
        // The child comes 60 s after its parent, so the parent's claim deadline passes before its own.
        if (how === 'expired unclaimed') await advanceTime(ctx, 60n)
        const {id: child, result} = await submitTask(ctx, {parentId: parent})
        results.push(result)
        await expectRevert(marketWrite(ctx, other, 'expire', [child]), 'DeadlineNotReached', [child, 2n ** 64n - 1n])
        if (how === 'expired unclaimed') {
          await advanceTime(ctx, defaultTask.claimTimeout - 50n)
          await marketWrite(ctx, other, 'expire', [parent])
        } else {
          await passWindows(ctx, parent)
          await settle(parent)
        }
        // Before its own claim deadline.
        assert.ok((await latestTimestamp(ctx)) < (await getTask(ctx, child)).deadline)
        const expired = await marketWrite(ctx, other, 'expire', [child])
        results.push(expired)
        expectEvents(expired.events, [{eventName: 'TaskExpired', args: {id: child, fromStatus: Status.Submitted, refunded: defaultTask.escrow}}])
        expectNetFlows(results, [
          [submitter.address, 0n],
          [ctx.system.market, 0n],
        ])
        assert.equal((await getTask(ctx, child)).status, Status.Expired)
      })
    }

    it('a parent that timed out and reopened is still live: its child waits', async () => {
      const parent = await taskAt(ctx, 'Claimed')
      const {id: child} = await submitTask(ctx, {parentId: parent})
      await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
      await marketWrite(ctx, ctx.actors.other, 'expire', [parent])
      assert.equal((await getTask(ctx, parent)).status, Status.Submitted)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [child]), 'DeadlineNotReached', [child, 2n ** 64n - 1n])
    })
  })

  describe('unreliable solvers: a training timeout', () => {
    it('slashes timeoutSlashBps of the absent solver\'s stake (no winner), reopens the task, and another solver finishes it: the submitter pays only the rewards', async () => {
      const {submitter, solver, verifier, other, treasury} = ctx.actors
      const solver2 = ctx.extra.solver2
      const results: TxResult[] = []
      const id = await taskAt(ctx, 'Claimed', {collect: results})
      // The deadline: claim + trainingBaseSeconds + ceil(workUnits / minWorkUnitsPerSecond) = claim + 100 + 100.
      const claimedAt = await latestTimestamp(ctx)
      assert.equal((await getTask(ctx, id)).deadline, claimedAt + 200n)
      await expectRevert(marketWrite(ctx, other, 'expire', [id]), 'DeadlineNotReached', [id, claimedAt + 200n])
      await advanceTime(ctx, 201n)
      const timedOut = await marketWrite(ctx, other, 'expire', [id])
      results.push(timedOut)
      const slashed = ether('0.25')
      expectEvents(timedOut.events.slice(0, 2), [
        {eventName: 'ClaimTimedOut', args: {id, solver: solver.address, slashed}},
        {eventName: 'TaskReopened', args: {id, claimDeadline: (await latestTimestamp(ctx)) + defaultTask.claimTimeout}},
      ])
      // The book released the absent solver's slot (not done: the task is back in the pool).
      assert.equal((await ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName: 'offerOf', args: [solver.address]})).active, 0)
      assert.equal(await ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName: 'demand'}), 10000n, 'a whole slot: 250,000 work units at 1e13 pay 2.5 solverStakes')
      // The absent solver may not commit any more; another solver takes the task and finishes it.
      await expectRevert(marketWrite(ctx, solver, 'commitProof', commitArgs(id)), 'InvalidStatus', [id, Status.Submitted])
      await driveTask(ctx, id, 'Verified', {solver: solver2, collect: results})
      await passWindows(ctx, id)
      results.push(await settle(id))
      const task = await getTask(ctx, id)
      assert.deepEqual([task.status, task.solver, task.attempts], [Status.Settled, solver2.address, 1])
      expectNetFlows(results, [
        [submitter.address, -(defaultTask.solverReward + defaultTask.verifierReward)],
        [solver2.address, defaultTask.solverReward - tax(defaultTask.solverReward)],
        [verifier.address, defaultTask.verifierReward - tax(defaultTask.verifierReward)],
        [solver.address, 0n],
        [ctx.system.market, tax(defaultTask.solverReward) + tax(defaultTask.verifierReward)],
      ])
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: ether('10') - slashed, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal((await stakeOf(ctx, treasury.address)).free, ether('0.2'))
    })

    for (const [bps, slashed] of [
      [0, 0n],
      [10000, ether('1')],
    ] as const) {
      it(`timeoutSlashBps ${bps}: slashes ${slashed} and unlocks the rest`, async () => {
        await setMarket(ctx, {timeoutSlashBps: bps})
        const id = await taskAt(ctx, 'Claimed')
        await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
        const timedOut = await marketWrite(ctx, ctx.actors.other, 'expire', [id])
        expectEvents(timedOut.events.slice(0, 1), [{eventName: 'ClaimTimedOut', args: {id, solver: ctx.actors.solver.address, slashed}}])
        assert.deepEqual(await stakeOf(ctx, ctx.actors.solver.address).then((s) => [s.free, s.locked]), [ether('10') - slashed, 0n])
        assert.equal((await getTask(ctx, id)).solver, zeroAddress)
      })
    }

    it('the timeouts are snapshotted at submission: a later config change does not move them', async () => {
      const id = await taskAt(ctx, 'Submitted')
      await setMarket(ctx, {claimTimeoutSeconds: 5000n, trainingBaseSeconds: 5000n, verificationTimeoutSeconds: 5000n})
      const task = await getTask(ctx, id)
      assert.deepEqual([task.claimTimeout, task.trainingTimeout, task.verificationTimeout], [100n, 200n, 300n])
      await driveTask(ctx, id, 'Claimed')
      const claimedAt = await latestTimestamp(ctx)
      assert.equal((await getTask(ctx, id)).deadline, claimedAt + 200n)
    })
  })
})
