import assert from 'node:assert/strict'

import {type Address, getAddress, parseEther, zeroAddress} from 'viem'

import type {MarketParams} from '../../src/chain/deployContracts.js'
import {solverBookAbi, solverBookBytecode} from '../../src/chain/generated/index.js'
import {type Actor, bookWrite, configWrite, expectDeployRevert, expectEvents, expectRevert, receiptOf, registryWrite, TEST_PRICE, testOffer, useChain} from './helpers/chain.js'

const BPS = 10000n
/** A task weighing one whole slot at TEST_PRICE: 100,000 work units * 1e13 wei = the 1 ether solverStake. */
const SLOT = 100_000n

/** The sample of one epoch end: demand (slot bps) / capacity (slots) in bps, 2 * target without capacity, capped at 2 * target. */
function sampleOf(demand: bigint, capacity: bigint, m: MarketParams): bigint {
  const cap = 2n * BigInt(m.targetUtilizationBps)
  if (capacity === 0n) return demand === 0n ? 0n : cap
  const u = demand / capacity
  return u > cap ? cap : u
}

/**
 * The controller of docs/market.md section 3, in integers as the contract computes it (division truncates toward 0):
 * each of `epochs` (at most 64) pushes `sample` into the 7-sample `window` (oldest first) and steps by its median,
 * sorted whole each time. Returns the price and the window.
 */
function stepPrice(price: bigint, window: bigint[], sample: bigint, m: MarketParams, epochs: number): {price: bigint; window: bigint[]} {
  const target = BigInt(m.targetUtilizationBps)
  const step = BigInt(m.priceStepBps)
  const clamp = (p: bigint) => (p < m.priceFloor ? m.priceFloor : p > m.priceCeiling ? m.priceCeiling : p)
  let p = price
  let w = [...window]
  for (let i = 0; i < Math.min(epochs, 64); i++) {
    w = [...w.slice(1), sample]
    const median = [...w].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[3]!
    let delta = (step * (median - target)) / target
    if (delta > step) delta = step
    if (delta < -step) delta = -step
    p = clamp((p * (BPS + delta)) / BPS)
  }
  return {price: clamp(p), window: w}
}

/** The window at the first touch: every sample at the target. */
const neutral = (m: MarketParams): bigint[] => Array.from({length: 7}, () => BigInt(m.targetUtilizationBps))

/** A moving market: docs/market.md's controller defaults with the test chain's timeouts. */
const moving = (ctx: {params: {market: MarketParams}}, change: Partial<MarketParams> = {}): MarketParams => ({
  ...ctx.params.market,
  initialPrice: TEST_PRICE,
  priceFloor: 10n ** 11n,
  priceCeiling: 10n ** 16n,
  priceStepBps: 1250,
  targetUtilizationBps: 8000,
  priceEpochBlocks: 5,
  ...change,
})

/**
 * The SolverBook on its own: offers, the market hooks and the price controller. A fresh book per test whose market
 * is an EOA (`marketEoa`), so the hooks can be called directly and demand set at will; its price is checked
 * against `stepPrice`, a second implementation of the controller.
 */
describe('SolverBook (on anvil)', () => {
  const ctx = useChain()
  let book: Address

  const read = <const fn extends 'demand' | 'capacity' | 'storedPrice' | 'epochStart' | 'currentPrice' | 'market' | 'owner' | 'registry' | 'config' | 'WINDOW'>(
    functionName: fn,
    address = book,
  ) => ctx.publicClient.readContract({address, abi: solverBookAbi, functionName})
  const offerOf = (account: Address, address = book) => ctx.publicClient.readContract({address, abi: solverBookAbi, functionName: 'offerOf', args: [account]})
  const hook = (functionName: 'onSubmit' | 'onClaim' | 'onRelease' | 'onCancel' | 'pruneOffer', args: readonly unknown[], by: Actor = ctx.actors.marketEoa) =>
    bookWrite(ctx, by, functionName as never, args as never, {address: book})
  /** A claimable task of `workUnits` (one whole slot by default) at most TEST_PRICE per work unit, no parent. */
  const submit = (workUnits = SLOT, maxPrice = TEST_PRICE, hasParent = false) => hook('onSubmit', [workUnits, 1n, maxPrice, hasParent])
  /** The weight onSubmit gives that task (simulated in the current block). */
  const weightOf = async (workUnits: bigint, maxPrice = TEST_PRICE, hasParent = false) =>
    (
      await ctx.publicClient.simulateContract({
        address: book,
        abi: solverBookAbi,
        functionName: 'onSubmit',
        args: [workUnits, 1n, maxPrice, hasParent],
        account: ctx.actors.marketEoa.wallet.account,
      })
    ).result.demandWeight
  const windowOf = async () => {
    const [samples, median] = await ctx.publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'utilizationWindow'})
    return {samples: samples.map(BigInt), median: BigInt(median)}
  }
  const head = () => ctx.publicClient.getBlockNumber({cacheTime: 0})
  /** Mines until the head is `block` (reads then run in it; the next transaction lands in block + 1). */
  async function mineTo(block: bigint): Promise<void> {
    const now = await head()
    assert.ok(block >= now, `already past block ${block}`)
    if (block > now) await ctx.test.mine({blocks: Number(block - now)})
  }
  const setMarket = (params: MarketParams) => configWrite(ctx, ctx.actors.deployer, 'setMarketParams', [params])

  beforeEach(async () => {
    const hash = await ctx.actors.deployer.wallet.deployContract({abi: solverBookAbi, bytecode: solverBookBytecode, args: [ctx.system.registry, ctx.system.config]})
    book = getAddress((await receiptOf(ctx.publicClient, hash)).contractAddress!)
    await bookWrite(ctx, ctx.actors.deployer, 'setMarket', [ctx.actors.marketEoa.address], {address: book})
  })

  describe('deployment and wiring', () => {
    it('the constructor reverts ZeroAddress for a zero registry or config', async () => {
      for (const args of [
        [zeroAddress, ctx.system.config],
        [ctx.system.registry, zeroAddress],
      ] as const) {
        await expectDeployRevert(ctx.actors.deployer.wallet.deployContract({abi: solverBookAbi, bytecode: solverBookBytecode, args}), solverBookAbi, 'ZeroAddress', [])
      }
    })
    it('exposes its wiring; setMarket emits MarketSet once, then reverts MarketAlreadySet; NotOwner and ZeroAddress otherwise', async () => {
      assert.deepEqual(
        [await read('registry'), await read('config'), await read('owner'), await read('market')].map((a) => getAddress(a)),
        [ctx.system.registry, ctx.system.config, ctx.actors.deployer.address, ctx.actors.marketEoa.address].map((a) => getAddress(a)),
      )
      const hash = await ctx.actors.deployer.wallet.deployContract({abi: solverBookAbi, bytecode: solverBookBytecode, args: [ctx.system.registry, ctx.system.config]})
      const fresh = getAddress((await receiptOf(ctx.publicClient, hash)).contractAddress!)
      await expectRevert(bookWrite(ctx, ctx.actors.other, 'setMarket', [ctx.actors.other.address], {address: fresh}), 'NotOwner', [ctx.actors.other.address])
      await expectRevert(bookWrite(ctx, ctx.actors.deployer, 'setMarket', [zeroAddress], {address: fresh}), 'ZeroAddress', [])
      const set = await bookWrite(ctx, ctx.actors.deployer, 'setMarket', [ctx.system.market], {address: fresh})
      expectEvents(set.allEvents, [{eventName: 'MarketSet', args: {market: getAddress(ctx.system.market)}}])
      await expectRevert(bookWrite(ctx, ctx.actors.deployer, 'setMarket', [ctx.system.market], {address: fresh}), 'MarketAlreadySet', [])
      // The deployed system's book is wired to its market.
      assert.equal(getAddress(await read('market', ctx.system.book)), getAddress(ctx.system.market))
    })
    it('the price starts at initialPrice at the first touch (PriceUpdated), whatever the parameters were at deployment', async () => {
      assert.equal(await read('storedPrice'), 0n)
      await setMarket(moving(ctx, {initialPrice: 3n * TEST_PRICE}))
      assert.equal(await read('currentPrice'), 3n * TEST_PRICE)
      const first = await submit(SLOT, 3n * TEST_PRICE)
      expectEvents(first.allEvents, [
        {eventName: 'PriceUpdated', args: {price: 3n * TEST_PRICE, demand: 0n, capacity: 0n}},
        {eventName: 'BookUpdated', args: {demand: BPS, capacity: 0n}},
      ])
      assert.deepEqual([await read('storedPrice'), await read('epochStart')], [3n * TEST_PRICE, first.receipt.blockNumber])
      assert.equal(await read('WINDOW'), 7n)
      assert.deepEqual(await windowOf(), {samples: neutral(moving(ctx)), median: 8000n}, 'the window starts at the target')
    })
  })

  describe('offers', () => {
    it('setOffer lists an offer (OfferSet, BookUpdated), an update replaces its capacity in the total, withdrawOffer unlists it', async () => {
      const {solver} = ctx.actors
      const set = await bookWrite(ctx, solver, 'setOffer', [5n, 3], {address: book})
      expectEvents(set.allEvents.filter((e) => e.eventName !== 'PriceUpdated'), [
        {eventName: 'OfferSet', args: {solver: solver.address, ask: 5n, capacity: 3}},
        {eventName: 'BookUpdated', args: {demand: 0n, capacity: 3n}},
      ])
      assert.deepEqual(await offerOf(solver.address), {ask: 5n, capacity: 3, active: 0, listed: true})
      assert.equal(await read('capacity'), 3n)
      await bookWrite(ctx, solver, 'setOffer', [7n, 1], {address: book})
      assert.equal(await read('capacity'), 1n)
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('2')})
      await bookWrite(ctx, ctx.actors.other, 'setOffer', [1n, 2], {address: book})
      assert.equal(await read('capacity'), 3n)
      const withdrawn = await bookWrite(ctx, solver, 'withdrawOffer', [], {address: book})
      expectEvents(withdrawn.allEvents, [
        {eventName: 'OfferWithdrawn', args: {solver: solver.address}},
        {eventName: 'BookUpdated', args: {demand: 0n, capacity: 2n}},
      ])
      assert.deepEqual(await offerOf(solver.address), {ask: 7n, capacity: 1, active: 0, listed: false})
      // Listing again adds the new capacity only.
      await bookWrite(ctx, solver, 'setOffer', [7n, 4], {address: book})
      assert.equal(await read('capacity'), 6n)
    })
    it('setOffer reverts OfferNotBacked(solver, stake, needed) beyond what the stake backs: capacity * solverStake, free + locked', async () => {
      const {other} = ctx.actors
      await registryWrite(ctx, other, 'register', [1], {value: parseEther('2.5')})
      await expectRevert(bookWrite(ctx, other, 'setOffer', [1n, 3], {address: book}), 'OfferNotBacked', [other.address, parseEther('2.5'), parseEther('3')])
      await expectRevert(bookWrite(ctx, other, 'setOffer', [1n, 2 ** 32 - 1], {address: book}), 'OfferNotBacked', [other.address, parseEther('2.5'), BigInt(2 ** 32 - 1) * parseEther('1')])
      await bookWrite(ctx, other, 'setOffer', [1n, 2], {address: book})
      // A solver registered with no stake lists nothing.
      await registryWrite(ctx, ctx.actors.submitter, 'register', [1])
      await expectRevert(bookWrite(ctx, ctx.actors.submitter, 'setOffer', [1n, 1], {address: book}), 'OfferNotBacked', [ctx.actors.submitter.address, 0n, parseEther('1')])
      // A higher solverStake asks more of the next listing.
      await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...ctx.params.config, solverStake: parseEther('1.5')}])
      await expectRevert(bookWrite(ctx, other, 'setOffer', [1n, 2], {address: book}), 'OfferNotBacked', [other.address, parseEther('2.5'), parseEther('3')])
      assert.equal(await read('capacity'), 2n, 'the listed offer stays until pruned')
    })
    it('pruneOffer: anyone unlists an offer its stake no longer backs (OfferPruned, OfferWithdrawn); OfferBacked while it does, NotListed without one', async () => {
      const {other, submitter} = ctx.actors
      await expectRevert(hook('pruneOffer', [other.address], submitter), 'NotListed', [other.address])
      await registryWrite(ctx, other, 'register', [1], {value: parseEther('2')})
      await bookWrite(ctx, other, 'setOffer', [1n, 2], {address: book})
      await expectRevert(hook('pruneOffer', [other.address], submitter), 'OfferBacked', [other.address, parseEther('2'), parseEther('2')])
      // Stake the market locked for a claim still backs the offer.
      await submit()
      await hook('onClaim', [other.address, TEST_PRICE, SLOT, 10000])
      await expectRevert(hook('pruneOffer', [other.address], submitter), 'OfferBacked', [other.address, parseEther('2'), parseEther('2')])
      // Unbonding does not: 1 wei short.
      await registryWrite(ctx, other, 'requestUnbond', [1n])
      const pruned = await hook('pruneOffer', [other.address], submitter)
      expectEvents(pruned.allEvents.filter((e) => e.eventName !== 'PriceUpdated'), [
        {eventName: 'OfferPruned', args: {solver: other.address, by: submitter.address, stake: parseEther('2') - 1n, needed: parseEther('2')}},
        {eventName: 'OfferWithdrawn', args: {solver: other.address}},
        {eventName: 'BookUpdated', args: {demand: BPS, capacity: 0n}},
      ])
      assert.deepEqual(await offerOf(other.address), {ask: 1n, capacity: 2, active: 1, listed: false}, 'the task it holds goes on')
      await expectRevert(hook('pruneOffer', [other.address], submitter), 'NotListed', [other.address])
      // It can list what it still backs.
      await bookWrite(ctx, other, 'setOffer', [1n, 1], {address: book})
    })
    it('setOffer reverts NotRegistered(account, SOLVER) without the SOLVER role (a verifier, an unregistered account)', async () => {
      for (const actor of [ctx.actors.verifier, ctx.actors.other]) {
        await expectRevert(bookWrite(ctx, actor, 'setOffer', [1n, 1], {address: book}), 'NotRegistered', [actor.address, 1])
      }
    })
    it('setOffer reverts InvalidOffer(ask, capacity) for a zero ask or a zero capacity', async () => {
      await expectRevert(bookWrite(ctx, ctx.actors.solver, 'setOffer', [0n, 1], {address: book}), 'InvalidOffer', [0n, 1])
      await expectRevert(bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, 0], {address: book}), 'InvalidOffer', [1n, 0])
    })
    it('withdrawOffer reverts NotListed(solver) without an offer and once withdrawn', async () => {
      await expectRevert(bookWrite(ctx, ctx.actors.solver, 'withdrawOffer', [], {address: book}), 'NotListed', [ctx.actors.solver.address])
      await bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, 1], {address: book})
      await bookWrite(ctx, ctx.actors.solver, 'withdrawOffer', [], {address: book})
      await expectRevert(bookWrite(ctx, ctx.actors.solver, 'withdrawOffer', [], {address: book}), 'NotListed', [ctx.actors.solver.address])
    })
  })

  describe('market hooks', () => {
    it('every hook reverts NotMarket for anyone but the market', async () => {
      for (const [fn, args] of [
        ['onSubmit', [1n, 1n, TEST_PRICE, false]],
        ['onClaim', [ctx.actors.solver.address, TEST_PRICE, 1n, 0]],
        ['onRelease', [ctx.actors.solver.address, true, 0]],
        ['onCancel', [0]],
      ] as const) {
        await expectRevert(hook(fn, args, ctx.actors.solver), 'NotMarket', [])
        await expectRevert(bookWrite(ctx, ctx.actors.solver, fn as never, args as never), 'NotMarket', [])
      }
    })
    it('onSubmit weighs a claimable task by its pay at the price in slots of solverStake (at most one), and counts it (BookUpdated)', async () => {
      // workUnits * 1e13 * 10000 / 1 ether: 100,000 work units fill a slot, 25,000 a quarter, 99 weigh 9 bps, 9 nothing.
      for (const [workUnits, weight] of [
        [SLOT, 10000],
        [SLOT / 4n, 2500],
        [1_000_000_000n, 10000],
        [99n, 9],
        [9n, 0],
        [1n, 0],
      ] as const) {
        assert.equal(await weightOf(workUnits), weight, `${workUnits} work units`)
        assert.equal(await ctx.publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'demandWeightOf', args: [workUnits, TEST_PRICE]}), weight)
      }
      const quarter = await submit(SLOT / 4n)
      expectEvents(quarter.allEvents.filter((e) => e.eventName === 'BookUpdated'), [{eventName: 'BookUpdated', args: {demand: 2500n, capacity: 0n}}])
      const tiny = await submit(1n)
      assert.deepEqual(tiny.allEvents.filter((e) => e.eventName === 'BookUpdated'), [], 'a task weighing nothing leaves the demand alone')
      assert.equal(await read('demand'), 2500n)
      // A solverStake of 0 makes every task a whole slot.
      await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...ctx.params.config, solverStake: 0n}])
      assert.equal(await weightOf(1n), 10000)
    })
    it('a task that cannot be claimed now (maxPrice below the price, or a parent) weighs nothing until its claim counts it at the claim price', async () => {
      const {solver} = ctx.actors
      await setMarket(moving(ctx, {initialPrice: 2n * TEST_PRICE}))
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 2], {address: book})
      assert.equal(await weightOf(SLOT, 2n * TEST_PRICE - 1n), 0, 'maxPrice 1 wei below the price')
      assert.equal(await weightOf(SLOT, 2n * TEST_PRICE, true), 0, 'a child waits for its parent')
      assert.equal(await weightOf(SLOT / 4n, 2n * TEST_PRICE), 5000, 'claimable: a quarter slot of work at twice the price is half a slot')
      await submit(SLOT / 4n, 2n * TEST_PRICE, true)
      assert.equal(await read('demand'), 0n)
      const {result} = await ctx.publicClient.simulateContract({
        address: book,
        abi: solverBookAbi,
        functionName: 'onClaim',
        args: [solver.address, 2n * TEST_PRICE, SLOT / 4n, 0],
        account: ctx.actors.marketEoa.wallet.account,
      })
      assert.deepEqual(result, [2n * TEST_PRICE, 5000])
      const claimed = await hook('onClaim', [solver.address, 2n * TEST_PRICE, SLOT / 4n, 0])
      expectEvents(claimed.allEvents, [
        {eventName: 'ActiveUpdated', args: {solver: solver.address, active: 1}},
        {eventName: 'BookUpdated', args: {demand: 5000n, capacity: 2n}},
      ])
      // A task already counted keeps its weight at the claim, whatever the price now.
      const again = await ctx.publicClient.simulateContract({
        address: book,
        abi: solverBookAbi,
        functionName: 'onClaim',
        args: [solver.address, 2n * TEST_PRICE, SLOT, 1234],
        account: ctx.actors.marketEoa.wallet.account,
      })
      assert.deepEqual(again.result, [2n * TEST_PRICE, 1234])
      await hook('onClaim', [solver.address, 2n * TEST_PRICE, SLOT, 1234])
      assert.equal(await read('demand'), 5000n, 'counted before: not counted twice')
    })
    it('onClaim returns the price and counts the claim (ActiveUpdated); onRelease frees it, done or not; onCancel and done releases take their weight off the demand', async () => {
      const {solver} = ctx.actors
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 2], {address: book})
      await submit()
      await submit(SLOT / 2n)
      const claimed = await hook('onClaim', [solver.address, TEST_PRICE, SLOT, 10000])
      expectEvents(claimed.allEvents, [{eventName: 'ActiveUpdated', args: {solver: solver.address, active: 1}}])
      await hook('onClaim', [solver.address, TEST_PRICE, SLOT / 2n, 5000])
      assert.equal((await offerOf(solver.address)).active, 2)
      const back = await hook('onRelease', [solver.address, false, 10000])
      expectEvents(back.allEvents, [{eventName: 'ActiveUpdated', args: {solver: solver.address, active: 1}}])
      assert.equal(await read('demand'), 15000n, 'a task back in the pool is still demand')
      const done = await hook('onRelease', [solver.address, true, 5000])
      expectEvents(done.allEvents, [
        {eventName: 'ActiveUpdated', args: {solver: solver.address, active: 0}},
        {eventName: 'BookUpdated', args: {demand: 10000n, capacity: 2n}},
      ])
      const cancelled = await hook('onCancel', [10000])
      expectEvents(cancelled.allEvents, [{eventName: 'BookUpdated', args: {demand: 0n, capacity: 2n}}])
      const nothing = await hook('onCancel', [0])
      assert.deepEqual(nothing.allEvents, [], 'a task that weighed nothing leaves nothing')
    })
    it('a solver that withdrew its offer is still released (its capacity already left the book)', async () => {
      const {solver} = ctx.actors
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 1], {address: book})
      await submit()
      await hook('onClaim', [solver.address, TEST_PRICE, SLOT, 10000])
      await bookWrite(ctx, solver, 'withdrawOffer', [], {address: book})
      assert.equal(await read('capacity'), 0n)
      await hook('onRelease', [solver.address, true, 10000])
      assert.deepEqual(await offerOf(solver.address), {ask: TEST_PRICE, capacity: 1, active: 0, listed: false})
      assert.deepEqual([await read('demand'), await read('capacity')], [0n, 0n])
    })
    it('onClaim reverts NotListed, AtCapacity(solver, capacity), AskAbovePrice(solver, ask, price) and PriceAboveMax(price, maxPrice)', async () => {
      const {solver} = ctx.actors
      await submit()
      const claim = (maxPrice: bigint) => hook('onClaim', [solver.address, maxPrice, SLOT, 10000])
      await expectRevert(claim(TEST_PRICE), 'NotListed', [solver.address])
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE + 1n, 1], {address: book})
      await expectRevert(claim(2n * TEST_PRICE), 'AskAbovePrice', [solver.address, TEST_PRICE + 1n, TEST_PRICE])
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 1], {address: book})
      await expectRevert(claim(TEST_PRICE - 1n), 'PriceAboveMax', [TEST_PRICE, TEST_PRICE - 1n])
      await claim(TEST_PRICE)
      await expectRevert(claim(TEST_PRICE), 'AtCapacity', [solver.address, 1])
      // Lowering the capacity below the tasks held is allowed; it claims no more until it has room.
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 2], {address: book})
      await claim(TEST_PRICE)
    })
    it('terms: the escrow ceil(workUnits * maxPrice * (10000 + fee) / 10000), the timeouts of the current parameters', async () => {
      await setMarket(moving(ctx, {priceFloor: 1n, verifierFeeBps: 3333, trainingBaseSeconds: 7n, minWorkUnitsPerSecond: 3n}))
      const terms = await ctx.publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'terms', args: [10n, 4n, 7n]})
      // 10 * 7 * 1.3333 = 93.331 -> 94; training 7 + ceil(10 / 3) = 11.
      assert.deepEqual(terms, {escrow: 94n, claimTimeout: 100n, trainingTimeout: 11n, verificationTimeout: 300n, verifierFeeBps: 3333, demandWeight: 0})
    })
  })

  describe('the price controller', () => {
    /**
     * Sets `params`, lists `capacity` (solver's offer; with none, touches the book once) and submits tasks of these
     * weights in slot bps (at TEST_PRICE, 10 work units per bps); returns the epoch start.
     */
    async function setup(params: MarketParams, capacity: number, weights: readonly bigint[]): Promise<bigint> {
      await setMarket(params)
      if (capacity > 0) await bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, capacity], {address: book})
      for (const weight of weights) await submit(weight * 10n)
      if (capacity === 0 && weights.length === 0) {
        // Touch the book once (the price starts at its first touch) and leave it empty.
        await bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, 1], {address: book})
        await bookWrite(ctx, ctx.actors.solver, 'withdrawOffer', [], {address: book})
      }
      return read('epochStart')
    }
    /** Epochs of 10 blocks: every setup fits in the first one. */
    const slow = () => moving(ctx, {priceEpochBlocks: 10})
    const sum = (weights: readonly bigint[]) => weights.reduce((a, b) => a + b, 0n)

    for (const [what, capacity, weights, factor] of [
      ['rises by priceStepBps per epoch under high utilisation (u = 2.0 for a target of 0.8: +18.75 % clamped to +12.5 %)', 1, [BPS, BPS], 11250n],
      ['falls under low utilisation (u = 0.1: -10.93 %)', 5, [5000n], 10000n - 1093n],
      ['moves in proportion near the target (u = 0.9: +1.56 %)', 5, [BPS, BPS, BPS, BPS, 5000n], 10156n],
      ['holds at the target (u = 0.8)', 5, [BPS, BPS, BPS, BPS], 10000n],
      ['rises by the full step when demand meets no capacity', 0, [BPS, 1n, 1n], 11250n],
      ['falls by the full step with neither demand nor capacity', 0, [], 8750n],
    ] as const) {
      it(`${what} once more than half the window says so; the view computes the stepped price and one touch stores it`, async () => {
        const params = slow()
        const start = await setup(params, capacity, weights)
        const stored = await read('storedPrice')
        const window = await windowOf()
        assert.deepEqual(window, {samples: neutral(params), median: 8000n})
        const sample = sampleOf(sum(weights), BigInt(capacity), params)
        // Three whole epochs later the median is still the target: three samples of seven moved.
        await mineTo(start + 3n * 10n)
        assert.equal(await read('currentPrice'), stored, 'three epochs do not move the median')
        // Six epochs: the fourth, fifth and sixth step by the sample.
        await mineTo(start + 6n * 10n)
        let expected = stored
        for (let i = 0; i < 3; i++) expected = (expected * factor) / BPS
        const model = stepPrice(stored, window.samples, sample, params, 6)
        assert.equal(expected, model.price)
        assert.equal(await read('currentPrice'), expected)
        assert.deepEqual(await windowOf(), {samples: model.window, median: sample})
        // A touch in the next block (still in the sixth epoch) applies them, with the demand and capacity that held.
        const touched = await submit(1n)
        assert.deepEqual([await read('storedPrice'), await read('epochStart')], [expected, start + 60n])
        const updated = touched.allEvents.filter((e) => e.eventName === 'PriceUpdated')
        if (expected === stored) assert.deepEqual(updated, [], 'no PriceUpdated when the price did not change')
        else expectEvents(updated, [{eventName: 'PriceUpdated', args: {price: expected, demand: sum(weights), capacity: BigInt(capacity)}}])
      })
    }

    it('a spike of one epoch (or three) leaves the price where it was; a fourth moves it', async () => {
      const params = slow()
      // At the target: 4 slots of demand on 5 of capacity.
      const start = await setup(params, 5, [BPS, BPS, BPS, BPS])
      const stored = await read('storedPrice')
      // The attacker's burst: 6 more slots (u = 2.0, a full step) held over one epoch end, then gone.
      for (let i = 0; i < 6; i++) await submit()
      await mineTo(start + 10n)
      for (let i = 0; i < 6; i++) await hook('onCancel', [10000])
      assert.deepEqual((await windowOf()).samples, [...neutral(params).slice(1), 16000n])
      await mineTo(start + 20n * 10n)
      assert.equal(await read('currentPrice'), stored, 'one high sample of seven')
      // Held over three epoch ends: still the median's minority.
      const now = (await head()) + 1n
      for (let i = 0; i < 6; i++) await submit()
      const from = await read('epochStart')
      await mineTo(from + 30n)
      assert.equal(await read('currentPrice'), stored, 'three high samples of seven')
      await mineTo(from + 40n)
      assert.equal(await read('currentPrice'), (stored * 11250n) / BPS, 'the fourth epoch end steps by the full step')
      assert.ok(now > start)
    })

    it('is clamped at the ceiling and at the floor', async () => {
      const params = moving(ctx, {priceCeiling: TEST_PRICE + TEST_PRICE / 4n, priceFloor: TEST_PRICE - TEST_PRICE / 4n})
      const start = await setup(params, 1, [BPS, BPS, BPS])
      // Two rising epochs reach the ceiling (1.125^2 > 1.25) after three that fill the window; ten stay there.
      await mineTo(start + 5n * 15n)
      assert.equal(await read('currentPrice'), params.priceCeiling)
      await submit(1n)
      assert.equal(await read('storedPrice'), params.priceCeiling)
      // Now no demand: it falls to the floor and stays there.
      const now = await read('epochStart')
      for (let i = 0; i < 3; i++) await hook('onCancel', [10000])
      await mineTo(now + 5n * 20n)
      await submit(1n)
      assert.equal(await read('storedPrice'), params.priceFloor)
    })

    it('steps at most 64 epochs at a time (the rest are dropped)', async () => {
      // A 0.01 % step never reaches a bound here, so 64 and 100 steps give different prices.
      const params = moving(ctx, {priceStepBps: 1, priceEpochBlocks: 1})
      const start = await setup(params, 1, [BPS, BPS])
      const stored = await read('storedPrice')
      const {samples} = await windowOf()
      await mineTo(start + 99n)
      const sample = sampleOf(2n * BPS, 1n, params)
      const capped = stepPrice(stored, samples, sample, params, 64).price
      assert.equal(await read('currentPrice'), capped)
      const uncapped = stepPrice(stored, samples, sample, params, 64 + 35).price
      let manual = stored
      for (let i = 0; i < 99; i++) manual = (manual * (i < 3 ? 10000n : 10001n)) / BPS
      assert.ok(uncapped === capped && manual > capped, 'the 35 epochs beyond 64 are not applied')
      await submit(1n)
      assert.equal(await read('storedPrice'), capped)
      assert.equal(await read('epochStart'), start + 100n, 'every elapsed epoch is consumed')
    })

    it('a narrower band set by the owner clamps the price at the next read, before any epoch passes', async () => {
      await setup(moving(ctx), 1, [BPS])
      await setMarket(moving(ctx, {priceFloor: 2n * TEST_PRICE, initialPrice: 2n * TEST_PRICE, priceEpochBlocks: 100_000}))
      assert.equal(await read('currentPrice'), 2n * TEST_PRICE)
      await setMarket(moving(ctx, {priceCeiling: TEST_PRICE / 2n, initialPrice: TEST_PRICE / 2n, priceEpochBlocks: 100_000}))
      assert.equal(await read('currentPrice'), TEST_PRICE / 2n)
    })
  })

  it('the deployed book follows the market: its offers, demand and price through a task (testOffer listed by useChain)', async () => {
    const main = ctx.system.book
    assert.deepEqual(await offerOf(ctx.actors.solver.address, main), {ask: testOffer.ask, capacity: testOffer.capacity, active: 0, listed: true})
    assert.deepEqual([await read('demand', main), await read('capacity', main), await read('currentPrice', main)], [0n, 5n, TEST_PRICE])
  })
})
