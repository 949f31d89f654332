import assert from 'node:assert/strict'

import {type Hex, parseEther} from 'viem'

import {defaultProtocolParams} from '../../src/chain/deployContracts.js'
import {protocolConfigAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {configWrite, expectRevert, getTask, marketWrite, mineAt, snapshotChain, stakeOf, useChain} from './helpers/chain.js'
import {
  challengeCommitArgs,
  commitArgs,
  commitChallenge,
  defaultSecret,
  defaultTask,
  deployProxy,
  driveTask,
  label,
  makeProof,
  mineTo,
  openArgs,
  passWindows,
  proxyCall,
  proxySetAcceptEther,
  setMarket,
  Status,
  taskAt,
  testSalt,
  toOpenWindow,
  toRevealWindow,
} from './helpers/tasks.js'

const ether = parseEther

/**
 * Issue 18's findings, each played as the attacker would play it against the real contracts on anvil. Every test
 * here passed for the attacker on the contracts before the fix (abed250) and fails for it now.
 */
describe('attacks on the market (on anvil)', () => {
  const ctx = useChain({stake: ether('5'), disputeActors: true})

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

  describe('finding 6: a copier and a sybil farm try to take the jackpot an honest whistleblower earned', () => {
    // A forced error accepted by a lazy verifier: the honest whistleblower replays segment 1 and finds the honest
    // run's checkpoint 2 where the published proof has another.
    const honest = makeProof('the honest run')
    const published = makeProof('the deliberately wrong publication')
    const replay: Hex = honest.checkpoints[2]!
    const jackpot = () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'jackpot'})
    async function forcedError(): Promise<bigint> {
      await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, forcedErrorBps: 10000}])
      await marketWrite(ctx, ctx.actors.deployer, 'fundJackpot', [], {value: ether('0.5')})
      return taskAt(ctx, 'Verified', {accepted: true, published, honest})
    }

    it('the copier front-runs the honest commitment with the same bytes, then replays the opening it saw: it cannot open, forfeits, and the honest whistleblower takes the whole payout', async () => {
      const {wb1: copier, wb2: whistleblower} = ctx.extra
      const id = await forcedError()
      // The copier sees the honest commitment in the mempool and sends the same bytes first: it takes seat 0.
      const honestCommit = challengeCommitArgs(id, whistleblower.address, 1, replay)
      await marketWrite(ctx, copier, 'commitChallenge', honestCommit)
      await commitChallenge(ctx, whistleblower, id, published, 1, replay)
      // After the window the honest opening is public; the copier replays it word for word, and tries it as its own.
      await toOpenWindow(ctx, id)
      await marketWrite(ctx, whistleblower, 'openChallenge', openArgs(id, published, 1, replay))
      await expectRevert(marketWrite(ctx, copier, 'openChallenge', openArgs(id, published, 1, replay, testSalt)), 'CommitmentMismatch', [id, copier.address])
      // Nor can it come in late with a commitment of its own.
      await expectRevert(marketWrite(ctx, copier, 'commitChallenge', challengeCommitArgs(id, copier.address, 1, replay)), 'ChallengeWindowClosed', [id, (await getTask(ctx, id)).challengeEndBlock])

      await toRevealWindow(ctx, id)
      const revealed = await marketWrite(ctx, ctx.actors.solver, 'revealForcedError', [id, defaultSecret, honest.root, honest.manifest])
      const paid = revealed.events.find((event) => event.eventName === 'ForcedErrorRevealed')!.args
      assert.deepEqual([paid.catchers, paid.paidEach], [[whistleblower.address], [ether('0.5')]], 'the whole payout to the one who did the work')
      const forfeited = revealed.events.find((event) => event.eventName === 'ChallengeForfeited')
      assert.deepEqual(forfeited?.args, {id, whistleblower: copier.address, index: 0n, deposit: defaultProtocolParams.challengeDeposit})
      assert.deepEqual(await stakeOf(ctx, copier.address), {free: ether('5') - defaultProtocolParams.challengeDeposit, locked: 0n, unbonding: 0n, releaseAt: 0n}, 'the copier lost its deposit')
      assert.equal(await jackpot(), 0n)
    })

    it('a sybil farm that commits blind from every seat left cannot open a claim it never knew: all its deposits are forfeited, the honest share is not diluted', async () => {
      const {wb1: whistleblower, wb2: sybilA, wb3: sybilB} = ctx.extra
      const id = await forcedError()
      await commitChallenge(ctx, whistleblower, id, published, 1, replay)
      // The farm fills the queue with commitments to guesses, hoping to open whatever turns out to pay.
      for (const sybil of [sybilA, sybilB]) await marketWrite(ctx, sybil, 'commitChallenge', challengeCommitArgs(id, sybil.address, 1, label(`guess of ${sybil.name}`)))
      await toOpenWindow(ctx, id)
      for (const sybil of [sybilA, sybilB]) {
        await expectRevert(marketWrite(ctx, sybil, 'openChallenge', openArgs(id, published, 1, replay)), 'CommitmentMismatch', [id, sybil.address])
      }
      await toRevealWindow(ctx, id)
      const revealed = await marketWrite(ctx, ctx.actors.solver, 'revealForcedError', [id, defaultSecret, honest.root, honest.manifest])
      const paid = revealed.events.find((event) => event.eventName === 'ForcedErrorRevealed')!.args
      assert.deepEqual([paid.catchers, paid.paidEach], [[whistleblower.address], [ether('0.5')]])
      const forfeits = revealed.events.filter((event) => event.eventName === 'ChallengeForfeited').map((event) => event.args.whistleblower)
      assert.deepEqual(forfeits, [sybilA.address, sybilB.address])
    })
  })
})
