import assert from 'node:assert/strict'

import {type Address, getAddress, parseEther, zeroAddress} from 'viem'

import type {MarketParams} from '../../src/chain/deployContracts.js'
import {solverBookAbi, solverBookBytecode} from '../../src/chain/generated/index.js'
import {type Actor, bookWrite, configWrite, expectDeployRevert, expectEvents, expectRevert, receiptOf, registryWrite, TEST_PRICE, testOffer, useChain} from './helpers/chain.js'

const BPS = 10000n

/** The controller of docs/market.md section 3, in integers as the contract computes it (division truncates toward 0). */
function stepPrice(price: bigint, demand: bigint, capacity: bigint, m: MarketParams, epochs: number): bigint {
  const target = BigInt(m.targetUtilizationBps)
  const step = BigInt(m.priceStepBps)
  const u = capacity === 0n ? (demand === 0n ? 0n : 2n * target) : (demand * BPS) / capacity
  let delta = (step * (u - target)) / target
  if (delta > step) delta = step
  if (delta < -step) delta = -step
  const clamp = (p: bigint) => (p < m.priceFloor ? m.priceFloor : p > m.priceCeiling ? m.priceCeiling : p)
  let p = price
  for (let i = 0; i < Math.min(epochs, 64); i++) p = clamp((p * (BPS + delta)) / BPS)
  return clamp(p)
}

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

  const read = <const fn extends 'demand' | 'capacity' | 'storedPrice' | 'epochStart' | 'currentPrice' | 'market' | 'owner' | 'registry' | 'config'>(
    functionName: fn,
    address = book,
  ) => ctx.publicClient.readContract({address, abi: solverBookAbi, functionName})
  const offerOf = (account: Address, address = book) => ctx.publicClient.readContract({address, abi: solverBookAbi, functionName: 'offerOf', args: [account]})
  const hook = (functionName: 'onSubmit' | 'onClaim' | 'onRelease' | 'onCancel', args: readonly unknown[], by: Actor = ctx.actors.marketEoa) =>
    bookWrite(ctx, by, functionName as never, args as never, {address: book})
  const submit = () => hook('onSubmit', [1n, 1n, TEST_PRICE])
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
      const first = await submit()
      expectEvents(first.allEvents, [
        {eventName: 'PriceUpdated', args: {price: 3n * TEST_PRICE, demand: 0n, capacity: 0n}},
        {eventName: 'BookUpdated', args: {demand: 1n, capacity: 0n}},
      ])
      assert.deepEqual([await read('storedPrice'), await read('epochStart')], [3n * TEST_PRICE, first.receipt.blockNumber])
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
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('1')})
      await bookWrite(ctx, ctx.actors.other, 'setOffer', [1n, 2 ** 32 - 1], {address: book})
      assert.equal(await read('capacity'), 2n ** 32n)
      const withdrawn = await bookWrite(ctx, solver, 'withdrawOffer', [], {address: book})
      expectEvents(withdrawn.allEvents, [
        {eventName: 'OfferWithdrawn', args: {solver: solver.address}},
        {eventName: 'BookUpdated', args: {demand: 0n, capacity: 2n ** 32n - 1n}},
      ])
      assert.deepEqual(await offerOf(solver.address), {ask: 7n, capacity: 1, active: 0, listed: false})
      // Listing again adds the new capacity only.
      await bookWrite(ctx, solver, 'setOffer', [7n, 4], {address: book})
      assert.equal(await read('capacity'), 2n ** 32n + 3n)
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
        ['onSubmit', [1n, 1n, TEST_PRICE]],
        ['onClaim', [ctx.actors.solver.address, TEST_PRICE]],
        ['onRelease', [ctx.actors.solver.address, true]],
        ['onCancel', []],
      ] as const) {
        await expectRevert(hook(fn, args, ctx.actors.solver), 'NotMarket', [])
        await expectRevert(bookWrite(ctx, ctx.actors.solver, fn as never, args as never), 'NotMarket', [])
      }
    })
    it('onClaim returns the price and counts the claim (ActiveUpdated); onRelease frees it, done or not; onCancel and done releases leave the demand', async () => {
      const {solver} = ctx.actors
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 2], {address: book})
      await submit()
      await submit()
      const {result: price} = await ctx.publicClient.simulateContract({
        address: book,
        abi: solverBookAbi,
        functionName: 'onClaim',
        args: [solver.address, TEST_PRICE],
        account: ctx.actors.marketEoa.wallet.account,
      })
      assert.equal(price, TEST_PRICE)
      const claimed = await hook('onClaim', [solver.address, TEST_PRICE])
      expectEvents(claimed.allEvents, [{eventName: 'ActiveUpdated', args: {solver: solver.address, active: 1}}])
      await hook('onClaim', [solver.address, TEST_PRICE])
      assert.equal((await offerOf(solver.address)).active, 2)
      const back = await hook('onRelease', [solver.address, false])
      expectEvents(back.allEvents, [{eventName: 'ActiveUpdated', args: {solver: solver.address, active: 1}}])
      assert.equal(await read('demand'), 2n, 'a task back in the pool is still demand')
      const done = await hook('onRelease', [solver.address, true])
      expectEvents(done.allEvents, [
        {eventName: 'ActiveUpdated', args: {solver: solver.address, active: 0}},
        {eventName: 'BookUpdated', args: {demand: 1n, capacity: 2n}},
      ])
      const cancelled = await hook('onCancel', [])
      expectEvents(cancelled.allEvents, [{eventName: 'BookUpdated', args: {demand: 0n, capacity: 2n}}])
    })
    it('a solver that withdrew its offer is still released (its capacity already left the book)', async () => {
      const {solver} = ctx.actors
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 1], {address: book})
      await submit()
      await hook('onClaim', [solver.address, TEST_PRICE])
      await bookWrite(ctx, solver, 'withdrawOffer', [], {address: book})
      assert.equal(await read('capacity'), 0n)
      await hook('onRelease', [solver.address, true])
      assert.deepEqual(await offerOf(solver.address), {ask: TEST_PRICE, capacity: 1, active: 0, listed: false})
      assert.deepEqual([await read('demand'), await read('capacity')], [0n, 0n])
    })
    it('onClaim reverts NotListed, AtCapacity(solver, capacity), AskAbovePrice(solver, ask, price) and PriceAboveMax(price, maxPrice)', async () => {
      const {solver} = ctx.actors
      await submit()
      await expectRevert(hook('onClaim', [solver.address, TEST_PRICE]), 'NotListed', [solver.address])
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE + 1n, 1], {address: book})
      await expectRevert(hook('onClaim', [solver.address, 2n * TEST_PRICE]), 'AskAbovePrice', [solver.address, TEST_PRICE + 1n, TEST_PRICE])
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 1], {address: book})
      await expectRevert(hook('onClaim', [solver.address, TEST_PRICE - 1n]), 'PriceAboveMax', [TEST_PRICE, TEST_PRICE - 1n])
      await hook('onClaim', [solver.address, TEST_PRICE])
      await expectRevert(hook('onClaim', [solver.address, TEST_PRICE]), 'AtCapacity', [solver.address, 1])
      // Lowering the capacity below the tasks held is allowed; it claims no more until it has room.
      await bookWrite(ctx, solver, 'setOffer', [TEST_PRICE, 2], {address: book})
      await hook('onClaim', [solver.address, TEST_PRICE])
    })
    it('terms: the escrow ceil(workUnits * maxPrice * (10000 + fee) / 10000), the timeouts of the current parameters', async () => {
      await setMarket(moving(ctx, {priceFloor: 1n, verifierFeeBps: 3333, trainingBaseSeconds: 7n, minWorkUnitsPerSecond: 3n}))
      const terms = await ctx.publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'terms', args: [10n, 4n, 7n]})
      // 10 * 7 * 1.3333 = 93.331 -> 94; training 7 + ceil(10 / 3) = 11.
      assert.deepEqual(terms, {escrow: 94n, claimTimeout: 100n, trainingTimeout: 11n, verificationTimeout: 300n, verifierFeeBps: 3333})
    })
  })

  describe('the price controller', () => {
    /** Sets `params`, lists `capacity` (solver's offer) and submits `demand` tasks; returns the epoch start. */
    async function setup(params: MarketParams, capacity: number, demand: number): Promise<bigint> {
      await setMarket(params)
      if (capacity > 0) await bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, capacity], {address: book})
      for (let i = 0; i < demand; i++) await submit()
      if (capacity === 0 && demand === 0) {
        // Touch the book once (the price starts at its first touch) and leave it empty.
        await bookWrite(ctx, ctx.actors.solver, 'setOffer', [1n, 1], {address: book})
        await bookWrite(ctx, ctx.actors.solver, 'withdrawOffer', [], {address: book})
      }
      return read('epochStart')
    }

    for (const [what, capacity, demand, factor] of [
      ['rises by priceStepBps per epoch under high utilisation (u = 2.0 for a target of 0.8: +18.75 % clamped to +12.5 %)', 1, 2, 11250n],
      ['falls under low utilisation (u = 0.1: -10.93 %)', 10, 1, 10000n - 1093n],
      ['moves in proportion near the target (u = 0.9: +1.56 %)', 10, 9, 10156n],
      ['holds at the target (u = 0.8)', 10, 8, 10000n],
      ['rises by the full step when demand meets no capacity', 0, 3, 11250n],
      ['falls by the full step with neither demand nor capacity', 0, 0, 8750n],
    ] as const) {
      it(`${what}; the view computes the stepped price and one touch stores it`, async () => {
        const params = moving(ctx)
        const start = await setup(params, capacity, demand)
        const stored = await read('storedPrice')
        // Three whole epochs later: the view in that block steps three times.
        await mineTo(start + 3n * 5n)
        let expected = stored
        for (let i = 0; i < 3; i++) expected = (expected * factor) / BPS
        assert.equal(expected, stepPrice(stored, BigInt(demand), BigInt(capacity), params, 3))
        assert.equal(await read('currentPrice'), expected)
        // A touch in the next block (still in the third epoch) applies them, with the demand and capacity that held.
        const touched = await submit()
        assert.deepEqual([await read('storedPrice'), await read('epochStart')], [expected, start + 15n])
        const updated = touched.allEvents.filter((e) => e.eventName === 'PriceUpdated')
        if (expected === stored) assert.deepEqual(updated, [], 'no PriceUpdated when the price did not change')
        else expectEvents(updated, [{eventName: 'PriceUpdated', args: {price: expected, demand: BigInt(demand), capacity: BigInt(capacity)}}])
      })
    }

    it('is clamped at the ceiling and at the floor', async () => {
      const params = moving(ctx, {priceCeiling: TEST_PRICE + TEST_PRICE / 4n, priceFloor: TEST_PRICE - TEST_PRICE / 4n})
      const start = await setup(params, 1, 3)
      // Two epochs reach the ceiling (1.125^2 > 1.25), ten stay there.
      await mineTo(start + 5n * 10n)
      assert.equal(await read('currentPrice'), params.priceCeiling)
      await submit()
      assert.equal(await read('storedPrice'), params.priceCeiling)
      // Now no demand: it falls to the floor and stays there.
      const now = await read('epochStart')
      for (let i = 0; i < 4; i++) await hook('onCancel', [])
      await mineTo(now + 5n * 20n)
      await submit()
      assert.equal(await read('storedPrice'), params.priceFloor)
    })

    it('steps at most 64 epochs at a time (the rest are dropped)', async () => {
      // A 0.01 % step never reaches a bound here, so 64 and 100 steps give different prices.
      const params = moving(ctx, {priceStepBps: 1, priceEpochBlocks: 1})
      const start = await setup(params, 1, 2)
      const stored = await read('storedPrice')
      await mineTo(start + 99n)
      const capped = stepPrice(stored, 2n, 1n, params, 64)
      assert.equal(await read('currentPrice'), capped)
      let uncapped = stored
      for (let i = 0; i < 99; i++) uncapped = (uncapped * 10001n) / BPS
      assert.ok(uncapped > capped, 'the 35 epochs beyond 64 are not applied')
      await submit()
      assert.equal(await read('storedPrice'), capped)
      assert.equal(await read('epochStart'), start + 100n, 'every elapsed epoch is consumed')
    })

    it('a narrower band set by the owner clamps the price at the next read, before any epoch passes', async () => {
      await setup(moving(ctx), 1, 1)
      await setMarket(moving(ctx, {priceFloor: 2n * TEST_PRICE, initialPrice: 2n * TEST_PRICE, priceEpochBlocks: 100_000}))
      assert.equal(await read('currentPrice'), 2n * TEST_PRICE)
      await setMarket(moving(ctx, {priceCeiling: TEST_PRICE / 2n, initialPrice: TEST_PRICE / 2n, priceEpochBlocks: 100_000}))
      assert.equal(await read('currentPrice'), TEST_PRICE / 2n)
    })
  })

  it('the deployed book follows the market: its offers, demand and price through a task (testOffer listed by useChain)', async () => {
    const main = ctx.system.book
    assert.deepEqual(await offerOf(ctx.actors.solver.address, main), {ask: testOffer.ask, capacity: testOffer.capacity, active: 0, listed: true})
    assert.deepEqual([await read('demand', main), await read('capacity', main), await read('currentPrice', main)], [0n, 100n, TEST_PRICE])
  })
})
