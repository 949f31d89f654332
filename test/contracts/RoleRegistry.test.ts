import assert from 'node:assert/strict'

import {type Address, encodeErrorResult, encodeFunctionData, getAddress, parseEther, zeroAddress} from 'viem'

import {roleRegistryAbi, roleRegistryBytecode} from '../../src/chain/generated/index.js'
import {
  deployBareRegistry,
  expectDeployRevert,
  expectEvents,
  expectRevert,
  flowOf,
  latestTimestamp,
  mineAt,
  registryWrite,
  stakeOf,
  useChain,
} from './helpers/chain.js'
import {deployProxy, proxyCall, proxyRead, proxySetAcceptEther, proxySetReentry} from './helpers/tasks.js'

const SOLVER = 1
const VERIFIER = 2
const WHISTLEBLOWER = 4

describe('RoleRegistry (on anvil)', () => {
  const ctx = useChain({params: {unbondingDelay: 60n}})
  const read = <const fn extends 'owner' | 'treasury' | 'unbondingDelay' | 'market' | 'totalStaked'>(functionName: fn, address?: Address) =>
    ctx.publicClient.readContract({address: address ?? ctx.system.registry, abi: roleRegistryAbi, functionName})
  const rolesOf = (account: Address) =>
    ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'rolesOf', args: [account]})
  const hasRoles = (account: Address, roles: number) =>
    ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'hasRoles', args: [account, roles]})

  describe('deployment and setMarket', () => {
    it('records owner, treasury, unbonding delay and the wired market; role constants are 1, 2, 4', async () => {
      assert.equal(await read('owner'), ctx.actors.deployer.address)
      assert.equal(await read('treasury'), ctx.actors.treasury.address)
      assert.equal(await read('unbondingDelay'), 60n)
      assert.equal(getAddress(await read('market')), getAddress(ctx.system.market))
      for (const [name, value] of [['SOLVER', 1], ['VERIFIER', 2], ['WHISTLEBLOWER', 4], ['ALL_ROLES', 7]] as const) {
        assert.equal(await ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: name}), value)
      }
    })

    it('constructor reverts ZeroAddress for a zero treasury', async () => {
      await expectDeployRevert(
        ctx.actors.deployer.wallet.deployContract({abi: roleRegistryAbi, bytecode: roleRegistryBytecode, args: [60n, zeroAddress, 1n]}),
        roleRegistryAbi,
        'ZeroAddress',
      )
    })

    it('setMarket: the owner sets it once and MarketSet is emitted', async () => {
      const registry = await deployBareRegistry(ctx)
      assert.equal(await read('market', registry), zeroAddress)
      const result = await registryWrite(ctx, ctx.actors.deployer, 'setMarket', [ctx.actors.marketEoa.address], {address: registry})
      expectEvents(result.events, [{eventName: 'MarketSet', args: {market: ctx.actors.marketEoa.address}}])
      assert.equal(await read('market', registry), ctx.actors.marketEoa.address)
    })

    it('setMarket reverts NotOwner for anyone but the owner', async () => {
      const registry = await deployBareRegistry(ctx)
      await expectRevert(registryWrite(ctx, ctx.actors.other, 'setMarket', [ctx.actors.other.address], {address: registry}), 'NotOwner', [])
    })

    it('setMarket reverts MarketAlreadySet the second time', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.deployer, 'setMarket', [ctx.actors.other.address]), 'MarketAlreadySet', [])
    })

    it('setMarket reverts ZeroAddress for the zero address', async () => {
      const registry = await deployBareRegistry(ctx)
      await expectRevert(registryWrite(ctx, ctx.actors.deployer, 'setMarket', [zeroAddress], {address: registry}), 'ZeroAddress', [])
    })
  })

  describe('register / deposit', () => {
    it('register with value grants the role and deposits the value as free stake', async () => {
      const {other} = ctx.actors
      const stake = parseEther('2')
      const result = await registryWrite(ctx, other, 'register', [SOLVER], {value: stake})
      expectEvents(result.events, [
        {eventName: 'Registered', args: {account: other.address, roles: SOLVER}},
        {eventName: 'Deposited', args: {account: other.address, amount: stake}},
      ])
      assert.equal(flowOf(result, other.address), -stake)
      assert.equal(flowOf(result, ctx.system.registry), stake)
      assert.equal(await rolesOf(other.address), SOLVER)
      assert.deepEqual(await stakeOf(ctx, other.address), {free: stake, locked: 0n, unbonding: 0n, releaseAt: 0n})
    })

    it('register ORs roles in; without value it emits no Deposited; Registered carries the resulting roles', async () => {
      const {other} = ctx.actors
      await registryWrite(ctx, other, 'register', [SOLVER])
      const result = await registryWrite(ctx, other, 'register', [VERIFIER | WHISTLEBLOWER])
      // No stake: the new verifier is not listed for committee draws (the verifier list section).
      expectEvents(result.events, [{eventName: 'Registered', args: {account: other.address, roles: 7}}])
      assert.equal(await rolesOf(other.address), 7)
      assert.equal((await stakeOf(ctx, other.address)).free, 0n)
    })

    it('hasRoles is true only when every asked bit is held, and false when asked for nothing', async () => {
      const {other} = ctx.actors
      await registryWrite(ctx, other, 'register', [SOLVER | WHISTLEBLOWER])
      assert.equal(await hasRoles(other.address, SOLVER), true)
      assert.equal(await hasRoles(other.address, SOLVER | WHISTLEBLOWER), true)
      assert.equal(await hasRoles(other.address, SOLVER | VERIFIER), false)
      assert.equal(await hasRoles(other.address, VERIFIER), false)
      assert.equal(await hasRoles(other.address, 0), false)
    })

    for (const roles of [0, 8, 9, 255]) {
      it(`register reverts InvalidRoles(${roles})`, async () => {
        await expectRevert(registryWrite(ctx, ctx.actors.other, 'register', [roles], {value: 1n}), 'InvalidRoles', [roles])
      })
    }

    it('deposit adds to free stake and totalStaked', async () => {
      const {solver} = ctx.actors
      const before = await stakeOf(ctx, solver.address)
      const totalBefore = await read('totalStaked')
      const result = await registryWrite(ctx, solver, 'deposit', [], {value: 123n})
      expectEvents(result.events, [{eventName: 'Deposited', args: {account: solver.address, amount: 123n}}])
      assert.equal((await stakeOf(ctx, solver.address)).free, before.free + 123n)
      assert.equal(await read('totalStaked'), totalBefore + 123n)
    })

    it('deposit reverts ZeroAmount without value', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.solver, 'deposit', []), 'ZeroAmount', [])
    })

    it('depositFor credits the named account (even one without a role) with the ether sent by anyone', async () => {
      const {other, submitter} = ctx.actors
      const totalBefore = await read('totalStaked')
      const result = await registryWrite(ctx, submitter, 'depositFor', [other.address], {value: 77n})
      expectEvents(result.events, [{eventName: 'Deposited', args: {account: other.address, amount: 77n}}])
      assert.equal(flowOf(result, submitter.address), -77n)
      assert.equal(flowOf(result, ctx.system.registry), 77n)
      assert.deepEqual(await stakeOf(ctx, other.address), {free: 77n, locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal(await read('totalStaked'), totalBefore + 77n)
    })

    it('depositFor reverts ZeroAmount without value and ZeroAddress for the zero account', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.solver, 'depositFor', [ctx.actors.other.address]), 'ZeroAmount', [])
      await expectRevert(registryWrite(ctx, ctx.actors.solver, 'depositFor', [zeroAddress], {value: 1n}), 'ZeroAddress', [])
    })
  })

  describe('verifier list', () => {
    const count = () => ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'verifierCount'})
    const at = (index: bigint) =>
      ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'verifierAt', args: [index]})

    it('lists a VERIFIER once its free + locked stake reaches minimumVerifierStake, once; other roles add nothing', async () => {
      const {verifier, verifier2, other, solver, submitter} = ctx.actors
      const minimum = await ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'minimumVerifierStake'})
      assert.equal(minimum, parseEther('0.5'), 'deployContracts lists at the verifier stake')
      assert.equal(await count(), 2n)
      assert.deepEqual([await at(0n), await at(1n)], [verifier.address, verifier2.address])
      // A solver-only registration is not listed, however much it stakes; an unstaked VERIFIER is not either.
      const solverOnly = await registryWrite(ctx, submitter, 'register', [SOLVER | WHISTLEBLOWER], {value: parseEther('1')})
      assert.deepEqual(solverOnly.events.map((e) => e.eventName), ['Registered', 'Deposited'])
      const empty = await registryWrite(ctx, other, 'register', [VERIFIER])
      assert.deepEqual(empty.events.map((e) => e.eventName), ['Registered'])
      // Below the minimum, then at it: listed by the deposit that reaches it.
      const below = await registryWrite(ctx, other, 'deposit', [], {value: minimum - 1n})
      assert.deepEqual(below.events.map((e) => e.eventName), ['Deposited'])
      const reaches = await registryWrite(ctx, other, 'deposit', [], {value: 1n})
      expectEvents(reaches.events, [
        {eventName: 'Deposited', args: {account: other.address, amount: 1n}},
        {eventName: 'VerifierListed', args: {account: other.address, index: 2n}},
      ])
      // The submitter's stake already counts when it gains VERIFIER.
      const gains = await registryWrite(ctx, submitter, 'register', [VERIFIER])
      expectEvents(gains.events, [
        {eventName: 'Registered', args: {account: submitter.address, roles: 7}},
        {eventName: 'VerifierListed', args: {account: submitter.address, index: 3n}},
      ])
      const again = await registryWrite(ctx, other, 'register', [VERIFIER | SOLVER], {value: 1n})
      assert.deepEqual(again.events.map((e) => e.eventName), ['Registered', 'Deposited'])
      await registryWrite(ctx, solver, 'register', [SOLVER])
      assert.equal(await count(), 4n)
      assert.deepEqual(await Promise.all([0n, 1n, 2n, 3n].map(at)), [verifier.address, verifier2.address, other.address, submitter.address])
    })

    it('delists (swap and pop) when an unbond request, a slash or a burn takes the stake below the minimum; locks leave the list alone', async () => {
      const {verifier, verifier2, marketEoa} = ctx.actors
      const registry = await deployBareRegistry(ctx, {market: marketEoa, minimumVerifierStake: parseEther('1')})
      const listed = async () => {
        const n = await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'verifierCount'})
        return Promise.all(Array.from({length: Number(n)}, (_, i) => ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'verifierAt', args: [BigInt(i)]})))
      }
      const actors = [verifier, verifier2, ctx.actors.other]
      for (const actor of actors) await registryWrite(ctx, actor, 'register', [VERIFIER], {value: parseEther('2'), address: registry})
      assert.deepEqual(await listed(), actors.map((a) => a.address))
      // Locking all of it keeps the stake (free + locked): still listed.
      await registryWrite(ctx, marketEoa, 'lock', [verifier.address, parseEther('2')], {address: registry})
      assert.deepEqual(await listed(), actors.map((a) => a.address))
      // A slash of 1.5 leaves 0.5 < 1: delisted, the last entry fills the gap; the winner is already listed.
      const slashed = await registryWrite(ctx, marketEoa, 'slash', [verifier.address, parseEther('1.5'), verifier2.address], {address: registry})
      expectEvents(slashed.events, [
        {eventName: 'Slashed', args: {from: verifier.address, to: verifier2.address, amount: parseEther('1.5')}},
        {eventName: 'VerifierDelisted', args: {account: verifier.address}},
      ])
      assert.deepEqual(await listed(), [ctx.actors.other.address, verifier2.address])
      // An unbond request below the minimum delists; burning the rest of a locked stake does too.
      const unbond = await registryWrite(ctx, ctx.actors.other, 'requestUnbond', [parseEther('1.5')], {address: registry})
      assert.deepEqual(unbond.events.map((e) => e.eventName), ['UnbondRequested', 'VerifierDelisted'])
      await registryWrite(ctx, marketEoa, 'lock', [verifier2.address, parseEther('3')], {address: registry})
      const burned = await registryWrite(ctx, marketEoa, 'burn', [verifier2.address, parseEther('2.6')], {address: registry})
      assert.deepEqual(burned.events.map((e) => e.eventName), ['Burned', 'VerifierDelisted'])
      assert.deepEqual(await listed(), [])
      // A deposit back over the minimum lists it again.
      await registryWrite(ctx, ctx.actors.other, 'deposit', [], {value: parseEther('1'), address: registry})
      assert.deepEqual(await listed(), [ctx.actors.other.address])
    })

    it('verifierAt reverts IndexOutOfRange(index, count) past the end', async () => {
      await expectRevert(at(2n), 'IndexOutOfRange', [2n, 2n])
      await expectRevert(at(2n ** 255n), 'IndexOutOfRange', [2n ** 255n, 2n])
    })
  })

  describe('whistleblowing', () => {
    const active = () => ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'activeWhistleblowers'})
    const watching = (account: Address) =>
      ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'isWhistleblowing', args: [account]})

    it('WHISTLEBLOWER accounts join and leave the active set; the count follows; a repeated value changes nothing', async () => {
      const {other, submitter} = ctx.actors
      await registryWrite(ctx, other, 'register', [WHISTLEBLOWER])
      await registryWrite(ctx, submitter, 'register', [WHISTLEBLOWER | SOLVER])
      assert.equal(await active(), 0n)
      const joined = await registryWrite(ctx, other, 'setWhistleblowing', [true])
      expectEvents(joined.events, [{eventName: 'WhistleblowingSet', args: {account: other.address, active: true, count: 1n}}])
      await registryWrite(ctx, submitter, 'setWhistleblowing', [true])
      assert.equal(await active(), 2n)
      assert.equal(await watching(other.address), true)
      const repeated = await registryWrite(ctx, other, 'setWhistleblowing', [true])
      assert.deepEqual(repeated.events, [])
      assert.equal(await active(), 2n)
      const left = await registryWrite(ctx, other, 'setWhistleblowing', [false])
      expectEvents(left.events, [{eventName: 'WhistleblowingSet', args: {account: other.address, active: false, count: 1n}}])
      assert.equal(await watching(other.address), false)
      assert.equal(await watching(submitter.address), true)
      const idle = await registryWrite(ctx, other, 'setWhistleblowing', [false])
      assert.deepEqual(idle.events, [])
      assert.equal(await active(), 1n)
    })

    it('setWhistleblowing reverts MissingRole(account, WHISTLEBLOWER) without the role', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.verifier, 'setWhistleblowing', [true]), 'MissingRole', [ctx.actors.verifier.address, WHISTLEBLOWER])
      await expectRevert(registryWrite(ctx, ctx.actors.other, 'setWhistleblowing', [false]), 'MissingRole', [ctx.actors.other.address, WHISTLEBLOWER])
    })
  })

  describe('requestUnbond / withdraw', () => {
    it('requestUnbond moves free stake to unbonding, released unbondingDelay later', async () => {
      const {solver} = ctx.actors
      const result = await registryWrite(ctx, solver, 'requestUnbond', [parseEther('2')])
      const now = await latestTimestamp(ctx)
      expectEvents(result.events, [{eventName: 'UnbondRequested', args: {account: solver.address, amount: parseEther('2'), releaseAt: now + 60n}}])
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: parseEther('3'), locked: 0n, unbonding: parseEther('2'), releaseAt: now + 60n})
      assert.equal(flowOf(result, ctx.system.registry), 0n)
    })

    it('a second request adds to the unbonding amount and restarts the clock', async () => {
      const {solver} = ctx.actors
      await registryWrite(ctx, solver, 'requestUnbond', [1n])
      const first = (await stakeOf(ctx, solver.address)).releaseAt
      await mineAt(ctx, (await latestTimestamp(ctx)) + 30n)
      await registryWrite(ctx, solver, 'requestUnbond', [2n])
      const stake = await stakeOf(ctx, solver.address)
      assert.equal(stake.unbonding, 3n)
      assert.equal(stake.releaseAt, (await latestTimestamp(ctx)) + 60n)
      assert.ok(stake.releaseAt >= first + 30n)
    })

    it('requestUnbond reverts ZeroAmount for 0', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.solver, 'requestUnbond', [0n]), 'ZeroAmount', [])
    })

    it('requestUnbond reverts InsufficientFreeStake(available, requested) above the free stake', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.solver, 'requestUnbond', [parseEther('5') + 1n]), 'InsufficientFreeStake', [
        parseEther('5'),
        parseEther('5') + 1n,
      ])
    })

    it('withdraw reverts NothingToWithdraw with nothing unbonding', async () => {
      await expectRevert(registryWrite(ctx, ctx.actors.solver, 'withdraw', []), 'NothingToWithdraw', [])
    })

    it('withdraw reverts UnbondingLocked(releaseAt) before the release time', async () => {
      const {solver} = ctx.actors
      await registryWrite(ctx, solver, 'requestUnbond', [parseEther('1')])
      const {releaseAt} = await stakeOf(ctx, solver.address)
      await expectRevert(registryWrite(ctx, solver, 'withdraw', []), 'UnbondingLocked', [releaseAt])
    })

    it('withdraw fails one second before releaseAt and pays the exact amount at releaseAt', async () => {
      const {solver} = ctx.actors
      await registryWrite(ctx, solver, 'requestUnbond', [parseEther('1.25')])
      const {releaseAt} = await stakeOf(ctx, solver.address)
      const totalBefore = await read('totalStaked')

      // Explicit gas: skip estimation so the transaction is mined at exactly the chosen timestamp.
      await ctx.test.setNextBlockTimestamp({timestamp: releaseAt - 1n})
      const early = await registryWrite(ctx, solver, 'withdraw', [], {gas: 100_000n})
      assert.equal(early.receipt.status, 'reverted')
      assert.equal(flowOf(early, solver.address), 0n)

      await ctx.test.setNextBlockTimestamp({timestamp: releaseAt})
      const result = await registryWrite(ctx, solver, 'withdraw', [], {gas: 100_000n})
      assert.equal(result.receipt.status, 'success')
      expectEvents(result.events, [{eventName: 'Withdrawn', args: {account: solver.address, amount: parseEther('1.25')}}])
      assert.equal(flowOf(result, solver.address), parseEther('1.25'))
      assert.equal(flowOf(result, ctx.system.registry), -parseEther('1.25'))
      assert.deepEqual(await stakeOf(ctx, solver.address), {free: parseEther('3.75'), locked: 0n, unbonding: 0n, releaseAt: 0n})
      assert.equal(await read('totalStaked'), totalBefore - parseEther('1.25'))
      await expectRevert(registryWrite(ctx, solver, 'withdraw', []), 'NothingToWithdraw', [])
    })

    it('withdraw reverts TransferFailed(to, amount) when the account rejects ether, and keeps the stake', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      const registry = ctx.system.registry
      await proxyCall(ctx, proxy, registry, roleRegistryAbi, 'register', [SOLVER], parseEther('1'))
      await proxyCall(ctx, proxy, registry, roleRegistryAbi, 'requestUnbond', [parseEther('1')])
      await ctx.test.increaseTime({seconds: 61})
      await proxySetAcceptEther(ctx, proxy, false)
      await expectRevert(proxyCall(ctx, proxy, registry, roleRegistryAbi, 'withdraw', []), 'TransferFailed', [proxy.address, parseEther('1')])
      assert.equal((await stakeOf(ctx, proxy.address)).unbonding, parseEther('1'))

      await proxySetAcceptEther(ctx, proxy, true)
      const result = await proxyCall(ctx, proxy, registry, roleRegistryAbi, 'withdraw', [])
      assert.equal(flowOf(result, proxy.address), parseEther('1'))
    })

    it('withdraw is safe against reentry: a re-entering withdraw finds nothing and the payout happens once', async () => {
      const proxy = await deployProxy(ctx, ctx.actors.other)
      const registry = ctx.system.registry
      await proxyCall(ctx, proxy, registry, roleRegistryAbi, 'register', [SOLVER], parseEther('2'))
      await proxyCall(ctx, proxy, registry, roleRegistryAbi, 'requestUnbond', [parseEther('1')])
      await ctx.test.increaseTime({seconds: 61})
      await proxySetReentry(ctx, proxy, registry, encodeFunctionData({abi: roleRegistryAbi, functionName: 'withdraw'}))
      const result = await proxyCall(ctx, proxy, registry, roleRegistryAbi, 'withdraw', [])
      assert.equal(await proxyRead(ctx, proxy, 'reentryAttempted'), true)
      assert.equal(await proxyRead(ctx, proxy, 'lastReentryOk'), false)
      const reentryError = encodeErrorResult({abi: roleRegistryAbi, errorName: 'NothingToWithdraw'})
      assert.equal(await proxyRead(ctx, proxy, 'lastReentryResult'), reentryError)
      assert.equal(flowOf(result, proxy.address), parseEther('1'))
      assert.deepEqual(await stakeOf(ctx, proxy.address), {free: parseEther('1'), locked: 0n, unbonding: 0n, releaseAt: 0n})
    })
  })

  describe('market-only: lock / unlock / slash', () => {
    let registry: Address
    beforeEach(async () => {
      registry = await deployBareRegistry(ctx, {market: ctx.actors.marketEoa})
      await registryWrite(ctx, ctx.actors.solver, 'register', [SOLVER], {value: parseEther('3'), address: registry})
    })

    for (const [name, args] of [
      ['lock', (a: Address) => [a, 1n]],
      ['unlock', (a: Address) => [a, 1n]],
      ['slash', (a: Address) => [a, 1n, a]],
      ['burn', (a: Address) => [a, 1n]],
    ] as const) {
      it(`${name} reverts NotMarket for anyone but the market`, async () => {
        await expectRevert(
          registryWrite(ctx, ctx.actors.deployer, name, args(ctx.actors.solver.address) as never, {address: registry}),
          'NotMarket',
          [],
        )
      })
    }

    it('lock moves free to locked; locked stake cannot be unbonded', async () => {
      const {solver, marketEoa} = ctx.actors
      const result = await registryWrite(ctx, marketEoa, 'lock', [solver.address, parseEther('2')], {address: registry})
      expectEvents(result.events, [{eventName: 'Locked', args: {account: solver.address, amount: parseEther('2')}}])
      assert.deepEqual(await stakeOf(ctx, solver.address, registry), {free: parseEther('1'), locked: parseEther('2'), unbonding: 0n, releaseAt: 0n})
      await expectRevert(registryWrite(ctx, solver, 'requestUnbond', [parseEther('1.5')], {address: registry}), 'InsufficientFreeStake', [
        parseEther('1'),
        parseEther('1.5'),
      ])
    })

    it('lock reverts InsufficientFreeStake(available, requested)', async () => {
      await expectRevert(
        registryWrite(ctx, ctx.actors.marketEoa, 'lock', [ctx.actors.solver.address, parseEther('3') + 1n], {address: registry}),
        'InsufficientFreeStake',
        [parseEther('3'), parseEther('3') + 1n],
      )
    })

    it('unlock moves locked back to free', async () => {
      const {solver, marketEoa} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, parseEther('2')], {address: registry})
      const result = await registryWrite(ctx, marketEoa, 'unlock', [solver.address, parseEther('1.5')], {address: registry})
      expectEvents(result.events, [{eventName: 'Unlocked', args: {account: solver.address, amount: parseEther('1.5')}}])
      assert.deepEqual(await stakeOf(ctx, solver.address, registry), {free: parseEther('2.5'), locked: parseEther('0.5'), unbonding: 0n, releaseAt: 0n})
    })

    it('unlock reverts InsufficientLockedStake(locked, requested)', async () => {
      const {solver, marketEoa} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, 10n], {address: registry})
      await expectRevert(registryWrite(ctx, marketEoa, 'unlock', [solver.address, 11n], {address: registry}), 'InsufficientLockedStake', [10n, 11n])
    })

    it('slash moves locked stake into the recipient free stake without moving ether; the recipient can withdraw it', async () => {
      const {solver, marketEoa, treasury} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, parseEther('2')], {address: registry})
      const totalBefore = await read('totalStaked', registry)
      const result = await registryWrite(ctx, marketEoa, 'slash', [solver.address, parseEther('1.5'), treasury.address], {address: registry})
      expectEvents(result.events, [{eventName: 'Slashed', args: {from: solver.address, to: treasury.address, amount: parseEther('1.5')}}])
      for (const flow of result.flows.values()) if (flow !== 0n) assert.equal(flow, 0n, 'slash must not move ether')
      assert.equal(await read('totalStaked', registry), totalBefore)
      assert.deepEqual(await stakeOf(ctx, solver.address, registry), {free: parseEther('1'), locked: parseEther('0.5'), unbonding: 0n, releaseAt: 0n})
      assert.equal((await stakeOf(ctx, treasury.address, registry)).free, parseEther('1.5'))

      await registryWrite(ctx, treasury, 'requestUnbond', [parseEther('1.5')], {address: registry})
      await ctx.test.increaseTime({seconds: 61})
      const paid = await registryWrite(ctx, treasury, 'withdraw', [], {address: registry})
      assert.equal(flowOf(paid, treasury.address), parseEther('1.5'))
    })

    it('slash reverts InsufficientLockedStake(locked, requested)', async () => {
      const {solver, marketEoa, treasury} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, 5n], {address: registry})
      await expectRevert(
        registryWrite(ctx, marketEoa, 'slash', [solver.address, 6n, treasury.address], {address: registry}),
        'InsufficientLockedStake',
        [5n, 6n],
      )
    })

    it('burn moves locked stake from totalStaked into totalBurned; the ether stays in the registry for ever', async () => {
      const {solver, marketEoa} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, parseEther('2')], {address: registry})
      const totalBefore = await read('totalStaked', registry)
      const balanceBefore = await ctx.publicClient.getBalance({address: registry})
      const result = await registryWrite(ctx, marketEoa, 'burn', [solver.address, parseEther('0.5')], {address: registry})
      expectEvents(result.events, [{eventName: 'Burned', args: {from: solver.address, amount: parseEther('0.5')}}])
      for (const flow of result.flows.values()) assert.equal(flow === 0n || flow === -result.gasPaid, true)
      assert.equal(await read('totalStaked', registry), totalBefore - parseEther('0.5'))
      const burned = await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'totalBurned'})
      assert.equal(burned, parseEther('0.5'))
      assert.equal(await ctx.publicClient.getBalance({address: registry}), balanceBefore)
      assert.deepEqual(await stakeOf(ctx, solver.address, registry), {free: parseEther('1'), locked: parseEther('1.5'), unbonding: 0n, releaseAt: 0n})
      // A second burn adds up; the whole locked stake can go.
      await registryWrite(ctx, marketEoa, 'burn', [solver.address, parseEther('1.5')], {address: registry})
      assert.equal(await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'totalBurned'}), parseEther('2'))
      assert.equal((await stakeOf(ctx, solver.address, registry)).locked, 0n)
    })

    it('burn reverts InsufficientLockedStake(locked, requested)', async () => {
      const {solver, marketEoa} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, 5n], {address: registry})
      await expectRevert(registryWrite(ctx, marketEoa, 'burn', [solver.address, 6n], {address: registry}), 'InsufficientLockedStake', [5n, 6n])
    })

    it('slash reverts ZeroAddress for a zero recipient', async () => {
      const {solver, marketEoa} = ctx.actors
      await registryWrite(ctx, marketEoa, 'lock', [solver.address, 5n], {address: registry})
      await expectRevert(registryWrite(ctx, marketEoa, 'slash', [solver.address, 5n, zeroAddress], {address: registry}), 'ZeroAddress', [])
    })
  })
})
