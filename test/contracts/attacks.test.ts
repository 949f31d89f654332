import assert from 'node:assert/strict'

import {parseEther} from 'viem'

import {defaultProtocolParams} from '../../src/chain/deployContracts.js'
import {protocolConfigAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {configWrite, expectRevert, getTask, marketWrite, mineAt, snapshotChain, stakeOf, useChain} from './helpers/chain.js'
import {
  commitArgs,
  defaultSecret,
  defaultTask,
  deployProxy,
  driveTask,
  mineTo,
  passWindows,
  proxyCall,
  proxySetAcceptEther,
  setMarket,
  Status,
  taskAt,
} from './helpers/tasks.js'

const ether = parseEther

/**
 * Issue 18's findings, each played as the attacker would play it against the real contracts on anvil. Every test
 * here passed for the attacker on the contracts before the fix (abed250) and fails for it now.
 */
describe('attacks on the market (on anvil)', () => {
  const ctx = useChain({stake: ether('5')})

  describe('finding 1: a submitter that cannot take ether tries to lock everyone else', () => {
    it('its refund is credited, not pushed: the task settles and the solver and verifier get their pay and stakes back', async () => {
      const attacker = await deployProxy(ctx, ctx.actors.other)
      await proxySetAcceptEther(ctx, attacker, false)
      const refund = ether('1')
      const submitted = await proxyCall(
        ctx,
        attacker,
        ctx.system.market,
        taskMarketAbi,
        'submitTask',
        [defaultTask.specHash, defaultTask.workUnits, defaultTask.maxSteps, defaultTask.maxPrice, 0n],
        defaultTask.escrow + refund,
      )
      const id = submitted.events.find((event) => event.eventName === 'TaskSubmitted')!.args.id as bigint
      await driveTask(ctx, id, 'Verified')
      await passWindows(ctx, id)

      await marketWrite(ctx, ctx.actors.other, 'settle', [id])

      assert.equal((await getTask(ctx, id)).status, Status.Settled)
      for (const honest of [ctx.actors.solver, ctx.actors.verifier]) {
        assert.equal((await stakeOf(ctx, honest.address)).locked, 0n, `${honest.name}'s stake is unlocked`)
        await marketWrite(ctx, honest, 'withdraw', [honest.address])
      }
      const credit = (account: `0x${string}`) =>
        ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'creditOf', args: [account]})
      assert.equal(await credit(attacker.address), refund, 'the attacker blocked only its own refund')
      await expectRevert(proxyCall(ctx, attacker, ctx.system.market, taskMarketAbi, 'withdraw', [attacker.address]), 'TransferFailed', [attacker.address, refund])
    })
  })

  describe('finding 2: a solver waits out the 256-block window to pick its forced-error coin', () => {
    it('past the window there is no coin to pick: every block refuses the toss and the commit, and the claim can only time out', async () => {
      await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, forcedErrorBps: 5000}])
      await setMarket(ctx, {trainingBaseSeconds: 3600n})
      const id = await taskAt(ctx, 'Claimed')
      const {claimBlock, deadline, solverLocked} = await getTask(ctx, id)
      await mineTo(ctx, claimBlock + 300n)

      // The attacker tries block after block for the coin it wants, committing the moment it comes up.
      for (let block = 0; block < 8; block++) {
        await expectRevert(
          ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'forcedErrorOf', args: [id, defaultSecret]}),
          'RandomnessExpired',
          [id, claimBlock + 257n],
        )
        await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id)), 'RandomnessExpired', [id, claimBlock + 257n])
        await ctx.test.mine({blocks: 1})
      }

      await mineAt(ctx, deadline + 1n)
      const expired = await marketWrite(ctx, ctx.actors.other, 'expire', [id])
      const timedOut = expired.events.find((event) => event.eventName === 'ClaimTimedOut')
      assert.ok(timedOut, 'the claim timed out')
      const {timeoutSlashBps} = await ctx.publicClient.readContract({address: ctx.system.config, abi: protocolConfigAbi, functionName: 'marketParams'})
      assert.equal(timedOut.args.slashed, (solverLocked * BigInt(timeoutSlashBps)) / 10_000n)
      assert.ok((timedOut.args.slashed as bigint) > 0n, 'missing the window costs the solver stake')
    })
  })

  describe('finding 2: a verifier waits out the window to pick which segments it replays', () => {
    it('after renewRandomness the draw is the same in whichever later block the verifier claims', async () => {
      await setMarket(ctx, {verificationTimeoutSeconds: 86_400n})
      const id = await taskAt(ctx, 'Committed')
      const {commitBlock} = await getTask(ctx, id)
      await mineTo(ctx, commitBlock + 300n)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'RandomnessExpired', [id, commitBlock + 257n])
      const renewed = await marketWrite(ctx, ctx.actors.verifier, 'renewRandomness', [id])

      // The attacker tries several claim blocks (rolling the chain back between tries, to just after the draw block:
      // a rollback past it would mine a new block at that height) and compares the draws.
      await ctx.test.mine({blocks: 1})
      const draws = new Set<string>()
      for (const wait of [0, 1, 4, 39]) {
        const rollBack = await snapshotChain(ctx)
        await ctx.test.mine({blocks: wait})
        await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
        draws.add((await getTask(ctx, id)).randomness)
        await rollBack()
      }
      assert.equal(draws.size, 1, 'one draw, whatever the claim block')
      const drawBlock = await ctx.publicClient.getBlock({blockNumber: renewed.receipt.blockNumber + 1n})
      assert.deepEqual([...draws], [drawBlock.hash])
    })
  })
})
