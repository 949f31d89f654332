import assert from 'node:assert/strict'

import {type Hex, numberToHex, parseEther, zeroHash} from 'viem'

import {defaultProtocolParams} from '../../src/chain/deployContracts.js'
import {protocolConfigAbi, roleRegistryAbi, solverBookAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {readTaskState} from '../../src/protocol/taskState.js'
import {bookWrite, configWrite, expectRevert, getTask, marketWrite, mineAt, readMarket, readTask, snapshotChain, stakeOf, type TxResult, useChain, write} from './helpers/chain.js'
import {
  challengeCommitArgs,
  commitArgs,
  commitChallenge,
  defaultSecret,
  defaultTask,
  deployProxy,
  driveTask,
  escrowOf,
  label,
  makeProof,
  mineTo,
  openArgs,
  passWindows,
  proxyCall,
  proxySetAcceptEther,
  setMarket,
  Status,
  submitTask,
  taskAt,
  testSalt,
  toOpenWindow,
  toRevealWindow,
  revealArgs,
  secretHashOf,
} from './helpers/tasks.js'

const ether = parseEther

/**
 * Issue 18's findings, each played as the attacker would play it against the real contracts on anvil. Every test
 * here passed for the attacker on the contracts before the fix (abed250) and fails for it now.
 */
describe('attacks on the market (on anvil)', () => {
  const ctx = useChain({stake: ether('5'), disputeActors: true})

  describe('forged and stale task states: the market keeps only a hash of each task, its callers pass the state', () => {
    /** The market's ABI under another identity: `write` then sends the arguments as given, with no state put in. */
    const rawMarketAbi = [...taskMarketAbi]
    const stateOf = (id: bigint) => readTaskState({client: ctx.publicClient, market: ctx.system.market}, id)
    /** `word` with `bits` bits at `offset` set to `value` (TaskMarketBase._pack's layout). */
    const withField = (word: Hex, offset: number, bits: number, value: bigint): Hex => {
      const mask = ((1n << BigInt(bits)) - 1n) << BigInt(offset)
      return numberToHex((BigInt(word) & ~mask) | (value << BigInt(offset)), {size: 32})
    }
    const edit = (state: Hex[], index: number, offset: number, bits: number, value: bigint) =>
      state.map((word, i) => (i === index ? withField(word, offset, bits, value) : word))

    it('a stranger passes a state naming itself the solver: StaleTask, and the real state does not let it commit either', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await ctx.test.mine({blocks: 1})
      const attacker = ctx.extra.solver2
      const forged = edit(await stateOf(id), 4, 0, 160, BigInt(attacker.address))
      const [, ...rest] = commitArgs(id)
      await expectRevert(write(ctx, attacker, ctx.system.market, rawMarketAbi, 'commitProof', [id, forged, ...rest]), 'StaleTask', [id])
      await expectRevert(marketWrite(ctx, attacker, 'commitProof', commitArgs(id)), 'NotSolver', [id, attacker.address])
    })

    it('a solver passes its Committed task as Verified and accepted with its windows past, to be paid before any verdict: StaleTask', async () => {
      const id = await taskAt(ctx, 'Committed')
      const state = await stateOf(id)
      const verified = edit(edit(state, 0, 160, 8, BigInt(Status.Verified)), 0, 168, 8, 1n)
      await expectRevert(write(ctx, ctx.actors.solver, ctx.system.market, rawMarketAbi, 'settle', [id, verified]), 'StaleTask', [id])
      assert.equal((await getTask(ctx, id)).status, Status.Committed)
    })

    it('a second solver replays the state from before the first claim, to claim the task again: StaleTask', async () => {
      const {id} = await submitTask(ctx)
      const before = await stateOf(id)
      await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, secretHashOf(defaultSecret)])
      await expectRevert(write(ctx, ctx.extra.solver2, ctx.system.market, rawMarketAbi, 'claimTask', [id, before, zeroHash]), 'StaleTask', [id])
      assert.equal((await getTask(ctx, id)).solver, ctx.actors.solver.address)
    })

    it('a child task is claimed with its parent shown Settled while the parent is only Claimed, or with no parent state: StaleTask(parentId)', async () => {
      const parentId = await taskAt(ctx, 'Claimed')
      const {id} = await submitTask(ctx, {parentId})
      const own = await stateOf(id)
      const parent = await stateOf(parentId)
      const settled = edit(parent, 0, 160, 8, BigInt(Status.Settled))
      const claim = (state: Hex[]) => write(ctx, ctx.extra.solver2, ctx.system.market, rawMarketAbi, 'claimTask', [id, state, zeroHash])
      await expectRevert(claim([...own, ...settled]), 'StaleTask', [parentId])
      await expectRevert(claim(own), 'StaleTask', [parentId])
      await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [id, zeroHash]), 'ParentNotSettled', [id, parentId])
    })
  })

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
          readMarket(ctx, 'forcedErrorOf', [id, defaultSecret]),
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
        draws.add((await readTask(ctx, id)).randomness)
        await rollBack()
      }
      assert.equal(draws.size, 1, 'one draw, whatever the claim block')
      const drawBlock = await ctx.publicClient.getBlock({blockNumber: renewed.receipt.blockNumber + 1n})
      assert.deepEqual([...draws], [drawBlock.hash])
    })
  })

  describe('finding 5: the price signal is cheap to move', () => {
    const PRICE = 10n ** 13n
    const EPOCH = 5n
    // The market below is the useChain solver's alone (finding 6's second solver leaves the book).
    beforeEach(() => bookWrite(ctx, ctx.extra.solver2, 'withdrawOffer', []))
    /**
     * docs/market.md's controller (1e13 start, 1e11 floor, 1e16 ceiling, 12.5 % steps every 5 blocks, target 0.8),
     * claims open for a day, and an honest market at the target: the useChain solver lists 5 tasks (its 5 ether
     * back them) at the floor, the submitter has 4 default tasks (250,000 work units each) in the pool.
     */
    async function honestMarket(): Promise<void> {
      await setMarket(ctx, {initialPrice: PRICE, priceFloor: 10n ** 11n, priceCeiling: 10n ** 16n, priceStepBps: 1250, targetUtilizationBps: 8000, priceEpochBlocks: Number(EPOCH), claimTimeoutSeconds: 86_400n})
      await bookWrite(ctx, ctx.actors.solver, 'setOffer', [10n ** 11n, 5])
      for (let i = 0; i < 4; i++) await submitTask(ctx)
    }
    const price = () => ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName: 'currentPrice'})
    const book = <const fn extends 'demand' | 'capacity'>(functionName: fn) => ctx.publicClient.readContract({address: ctx.system.book, abi: solverBookAbi, functionName})
    const head = () => ctx.publicClient.getBlockNumber({cacheTime: 0})

    /** The attacker's submission of `count` tasks of `workUnits` at `maxPrice` each, from `other`; returns the receipts. */
    async function flood(count: number, workUnits: bigint, maxPrice: bigint): Promise<TxResult[]> {
      const escrow = escrowOf(workUnits, maxPrice)
      const results: TxResult[] = []
      for (let i = 0; i < count; i++) {
        results.push(await marketWrite(ctx, ctx.actors.other, 'submitTask', [label(`pump ${i}`), workUnits, 1n, maxPrice, 0n], {value: escrow}))
      }
      return results
    }

    it('sybil solvers with no stake list huge capacity to crash the price: the book refuses them and the price holds', async () => {
      await honestMarket()
      const sybils = [await deployProxy(ctx, ctx.actors.other), await deployProxy(ctx, ctx.actors.other), await deployProxy(ctx, ctx.actors.other)]
      for (const sybil of sybils) {
        await proxyCall(ctx, sybil, ctx.system.registry, roleRegistryAbi, 'register', [1])
        await expectRevert(
          proxyCall(ctx, sybil, ctx.system.book, solverBookAbi, 'setOffer', [10n ** 11n, 2 ** 32 - 1]),
          'OfferNotBacked',
          [sybil.address, 0n, BigInt(2 ** 32 - 1) * ether('1')],
        )
      }
      assert.equal(await book('capacity'), 5n, 'only the honest, staked capacity is listed')
      await ctx.test.mine({blocks: Number(30n * EPOCH)})
      assert.equal(await price(), PRICE, 'thirty epochs later the price is where the honest market put it')
    })

    it('a sybil that stakes, lists and unbonds is pruned by anyone: its capacity leaves the book', async () => {
      await honestMarket()
      const sybil = await deployProxy(ctx, ctx.actors.other)
      await proxyCall(ctx, sybil, ctx.system.registry, roleRegistryAbi, 'register', [1], ether('3'))
      await proxyCall(ctx, sybil, ctx.system.book, solverBookAbi, 'setOffer', [10n ** 11n, 3])
      await proxyCall(ctx, sybil, ctx.system.registry, roleRegistryAbi, 'requestUnbond', [ether('3')])
      assert.equal(await book('capacity'), 8n)
      await bookWrite(ctx, ctx.actors.verifier, 'pruneOffer', [sybil.address])
      assert.equal(await book('capacity'), 5n)
      await ctx.test.mine({blocks: Number(30n * EPOCH)})
      assert.equal(await price(), PRICE)
    })

    it('cheap tasks pump the price: tiny ones at the price, or big ones at a maxPrice nobody can be paid: they weigh nothing and the price holds', async () => {
      await honestMarket()
      const before = await book('demand')
      // Fifty tasks of one work unit at the price (escrow 1.2e13 wei each), and four of 10^7 work units at the floor.
      await flood(50, 1n, PRICE)
      await flood(4, 10_000_000n, 10n ** 11n)
      assert.equal(await book('demand'), before, 'the demand did not move')
      await ctx.test.mine({blocks: Number(30n * EPOCH)})
      assert.equal(await price(), PRICE, 'thirty epochs later the price is where the honest market put it')
    })

    it('a burst held over fewer than half the window\'s epoch ends does not move the price', async () => {
      await honestMarket()
      // Eight whole-slot tasks (100,000 work units at the price: 1 ether of pay each): u = 2.4, over three epoch ends.
      const start = await head()
      await flood(8, 100_000n, PRICE)
      await mineTo(ctx, start + 3n * EPOCH)
      assert.equal(await price(), PRICE, 'three epoch ends of seven')
    })

    /**
     * The cost to double the price, for an attacker submitting `count` tasks of `workUnits` at the price and keeping
     * them in the pool (nobody claims them here; any solver could, paying the attacker's escrow out as real work).
     * Returns what it locked and spent, and the blocks it took (undefined: no doubling within 60 epochs). The chain
     * is rolled back afterwards.
     */
    async function costToDouble(count: number, workUnits: bigint) {
      const rollBack = await snapshotChain(ctx)
      await honestMarket()
      const start = await head()
      const results = await flood(count, workUnits, PRICE)
      let blocks: bigint | undefined
      for (let epoch = 0; epoch < 60 && blocks === undefined; epoch++) {
        await ctx.test.mine({blocks: Number(EPOCH)})
        if ((await price()) >= 2n * PRICE) blocks = (await head()) - start
      }
      const gas = results.reduce((sum, r) => sum + r.receipt.gasUsed, 0n)
      const gasPaid = results.reduce((sum, r) => sum + r.gasPaid, 0n)
      const escrow = BigInt(count) * escrowOf(workUnits, PRICE)
      await rollBack()
      if (process.env.ATTACK_COST_REPORT) {
        console.log(`      ${count} tasks of ${workUnits} work units at ${PRICE} wei: escrow locked ${escrow} wei, gas ${gas} (${gasPaid} wei paid), doubled after ${blocks ?? 'never (60 epochs)'} blocks`)
      }
      return {escrow, gas, blocks}
    }

    it('the cost to move the price 2x: tiny tasks never do it; it takes whole slots of escrow at the price, held past half the window (ATTACK_COST_REPORT=1 prints it)', async () => {
      // Before the fix four tasks of one work unit (48e12 wei of escrow, refunded) doubled the price in 6 epochs.
      const four = await costToDouble(4, 1n)
      const tiny = await costToDouble(60, 1n)
      assert.deepEqual([four.blocks, tiny.blocks], [undefined, undefined], 'four or sixty tiny tasks never double it')
      // Four whole-slot tasks (1 ether of pay each at the price, 1.2 ether of escrow) bring u to 1.6, a full step.
      const short = await costToDouble(3, 100_000n)
      const whole = await costToDouble(4, 100_000n)
      assert.ok(whole.blocks !== undefined, 'four slots of escrow double it')
      assert.ok(short.blocks === undefined || short.blocks > whole.blocks, 'three slots take longer or never do')
      // A 2x takes six full steps (1.125^6 = 2.03) after three epoch ends the median ignores.
      assert.ok(whole.blocks >= 9n * EPOCH, `doubled after ${whole.blocks} blocks`)
      assert.equal(whole.escrow, ether('4.8'))
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
      const revealed = await marketWrite(ctx, ctx.actors.solver, 'revealForcedError', await revealArgs(ctx, id, honest))
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
      const revealed = await marketWrite(ctx, ctx.actors.solver, 'revealForcedError', await revealArgs(ctx, id, honest))
      const paid = revealed.events.find((event) => event.eventName === 'ForcedErrorRevealed')!.args
      assert.deepEqual([paid.catchers, paid.paidEach], [[whistleblower.address], [ether('0.5')]])
      const forfeits = revealed.events.filter((event) => event.eventName === 'ChallengeForfeited').map((event) => event.args.whistleblower)
      assert.deepEqual(forfeits, [sybilA.address, sybilB.address])
    })
  })
})
