import assert from 'node:assert/strict'

import {type Address, getAddress, type Hex, keccak256, parseEther, stringToHex, zeroAddress, zeroHash} from 'viem'

import {thresholdRegistryAbi, thresholdRegistryBytecode} from '../../src/chain/generated/index.js'
import {
  deployBareRegistry,
  expectDeployRevert,
  expectEvents,
  expectNetFlows,
  expectRevert,
  latestTimestamp,
  receiptOf,
  registryWrite,
  thresholdsWrite,
  useChain,
  write,
} from './helpers/chain.js'

const SOLVER = 1
const VERIFIER = 2

const mlp = keccak256(stringToHex('model: mnist mlp 784-128-10'))
const cnn = keccak256(stringToHex('model: mnist cnn'))
const wasm = keccak256(stringToHex('runtime: tfjs wasm simd'))
const cpu = keccak256(stringToHex('runtime: tfjs-node cpu'))
const profile = keccak256(stringToHex('profile report 1'))
const profile2 = keccak256(stringToHex('profile report 2'))
/** 0.02 as a 1e18-scaled fixed-point number. */
const THRESHOLD = 20_000_000_000_000_000n

describe('ThresholdRegistry (on anvil)', () => {
  const ctx = useChain()
  const thresholdOf = (modelClass: Hex, runtimeClass: Hex, poster: Address, address: Address = ctx.system.thresholds) =>
    ctx.publicClient.readContract({address, abi: thresholdRegistryAbi, functionName: 'thresholdOf', args: [modelClass, runtimeClass, poster]})
  const none = [0n, zeroHash, 0n]

  async function deployThresholds(registry: Address): Promise<Address> {
    const hash = await ctx.actors.deployer.wallet.deployContract({abi: thresholdRegistryAbi, bytecode: thresholdRegistryBytecode, args: [registry]})
    const receipt = await receiptOf(ctx.publicClient, hash)
    assert.ok(receipt.contractAddress)
    const thresholds = getAddress(receipt.contractAddress)
    ctx.systems.push({registry, thresholds})
    return thresholds
  }

  it('exposes its registry and SCALE (1e18); thresholdOf is all zeros for a pair never posted', async () => {
    const registry = await ctx.publicClient.readContract({address: ctx.system.thresholds, abi: thresholdRegistryAbi, functionName: 'registry'})
    assert.equal(getAddress(registry), getAddress(ctx.system.registry))
    assert.equal(await ctx.publicClient.readContract({address: ctx.system.thresholds, abi: thresholdRegistryAbi, functionName: 'SCALE'}), 10n ** 18n)
    assert.deepEqual(await thresholdOf(mlp, wasm, ctx.actors.verifier.address), none)
  })

  it("a verifier posts a threshold: stored under its own address with the time, ThresholdPosted emitted, no ether moves", async () => {
    const {verifier, verifier2} = ctx.actors
    const result = await thresholdsWrite(ctx, verifier, 'postThreshold', [mlp, wasm, THRESHOLD, profile])
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {
        eventName: 'ThresholdPosted',
        args: {modelClass: mlp, runtimeClass: wasm, threshold: THRESHOLD, profileHash: profile, poster: verifier.address},
        address: ctx.system.thresholds,
      },
    ])
    expectNetFlows([result], [])
    assert.deepEqual(await thresholdOf(mlp, wasm, verifier.address), [THRESHOLD, profile, now])
    // Only that pair and that poster: another runtime, another model and another poster have none.
    assert.deepEqual(await thresholdOf(mlp, cpu, verifier.address), none)
    assert.deepEqual(await thresholdOf(cnn, wasm, verifier.address), none)
    assert.deepEqual(await thresholdOf(mlp, wasm, verifier2.address), none)
  })

  it("a poster's later post for the same pair replaces its own; its other pairs keep theirs", async () => {
    const {verifier} = ctx.actors
    await thresholdsWrite(ctx, verifier, 'postThreshold', [mlp, wasm, THRESHOLD, profile])
    await thresholdsWrite(ctx, verifier, 'postThreshold', [mlp, cpu, 7n, profile])
    const first = await latestTimestamp(ctx)
    await ctx.test.increaseTime({seconds: 30})
    const replaced = await thresholdsWrite(ctx, verifier, 'postThreshold', [mlp, wasm, 1n, profile2])
    const second = await latestTimestamp(ctx)
    assert.ok(second >= first + 30n)
    expectEvents(replaced.events, [
      {eventName: 'ThresholdPosted', args: {modelClass: mlp, runtimeClass: wasm, threshold: 1n, profileHash: profile2, poster: verifier.address}},
    ])
    assert.deepEqual(await thresholdOf(mlp, wasm, verifier.address), [1n, profile2, second])
    assert.deepEqual(await thresholdOf(mlp, cpu, verifier.address), [7n, profile, first])
  })

  it('attack: a free verifier registration posting a huge threshold for the same pair after the honest poster leaves the honest entry as it was', async () => {
    const {verifier, other: attacker} = ctx.actors
    await thresholdsWrite(ctx, verifier, 'postThreshold', [mlp, wasm, THRESHOLD, profile])
    const honestAt = await latestTimestamp(ctx)
    // The attacker registers as a verifier with no stake (free) and posts after the honest poster, as it would
    // have to for last-writer-wins to hand it the pair.
    await registryWrite(ctx, attacker, 'register', [VERIFIER])
    const attack = await thresholdsWrite(ctx, attacker, 'postThreshold', [mlp, wasm, 2n ** 256n - 1n, profile2])
    expectEvents(attack.events, [
      {eventName: 'ThresholdPosted', args: {modelClass: mlp, runtimeClass: wasm, threshold: 2n ** 256n - 1n, profileHash: profile2, poster: attacker.address}},
    ])
    assert.deepEqual(await thresholdOf(mlp, wasm, verifier.address), [THRESHOLD, profile, honestAt])
    // Its post is a record under its own name only, which no job binds unless its submitter pins it.
    const [threshold, profileHash] = await thresholdOf(mlp, wasm, attacker.address)
    assert.deepEqual([threshold, profileHash], [2n ** 256n - 1n, profile2])
  })

  it('checks the role only: a verifier with no stake and a zero profile hash may post', async () => {
    const {other} = ctx.actors
    await registryWrite(ctx, other, 'register', [SOLVER | VERIFIER])
    await thresholdsWrite(ctx, other, 'postThreshold', [cnn, cpu, 2n ** 256n - 1n, zeroHash])
    const [threshold, profileHash] = await thresholdOf(cnn, cpu, other.address)
    assert.deepEqual([threshold, profileHash], [2n ** 256n - 1n, zeroHash])
  })

  it('reads roles from its own registry: a verifier of another registry is not one here', async () => {
    const {other} = ctx.actors
    const registry = await deployBareRegistry(ctx)
    await registryWrite(ctx, other, 'register', [VERIFIER], {address: registry})
    const thresholds = await deployThresholds(registry)
    await thresholdsWrite(ctx, other, 'postThreshold', [mlp, wasm, THRESHOLD, profile], {address: thresholds})
    assert.equal((await thresholdOf(mlp, wasm, other.address, thresholds))[0], THRESHOLD)
    await expectRevert(thresholdsWrite(ctx, other, 'postThreshold', [mlp, wasm, THRESHOLD, profile]), 'NotRegistered', [other.address, VERIFIER])
  })

  it('holds no ether: a plain transfer and a postThreshold carrying value both revert', async () => {
    const {verifier} = ctx.actors
    await assert.rejects(verifier.wallet.sendTransaction({to: ctx.system.thresholds, value: 1n}))
    await assert.rejects(write(ctx, verifier, ctx.system.thresholds, thresholdRegistryAbi, 'postThreshold', [mlp, wasm, THRESHOLD, profile], {value: 1n}))
    assert.equal(await ctx.publicClient.getBalance({address: ctx.system.thresholds}), 0n)
    assert.deepEqual(await thresholdOf(mlp, wasm, verifier.address), none)
  })

  describe('errors', () => {
    it('constructor reverts ZeroAddress for a zero registry', async () => {
      await expectDeployRevert(
        ctx.actors.deployer.wallet.deployContract({abi: thresholdRegistryAbi, bytecode: thresholdRegistryBytecode, args: [zeroAddress]}),
        thresholdRegistryAbi,
        'ZeroAddress',
        [],
      )
    })
    it('postThreshold reverts ZeroClass for a zero model class', async () => {
      await expectRevert(thresholdsWrite(ctx, ctx.actors.verifier, 'postThreshold', [zeroHash, wasm, THRESHOLD, profile]), 'ZeroClass', [])
    })
    it('postThreshold reverts ZeroClass for a zero runtime class', async () => {
      await expectRevert(thresholdsWrite(ctx, ctx.actors.verifier, 'postThreshold', [mlp, zeroHash, THRESHOLD, profile]), 'ZeroClass', [])
    })
    it('postThreshold reverts ZeroThreshold for a zero threshold', async () => {
      await expectRevert(thresholdsWrite(ctx, ctx.actors.verifier, 'postThreshold', [mlp, wasm, 0n, profile]), 'ZeroThreshold', [])
      assert.deepEqual(await thresholdOf(mlp, wasm, ctx.actors.verifier.address), none)
    })
    it('postThreshold reverts NotRegistered(account, VERIFIER) for an unregistered account', async () => {
      const {other} = ctx.actors
      await expectRevert(thresholdsWrite(ctx, other, 'postThreshold', [mlp, wasm, THRESHOLD, profile]), 'NotRegistered', [other.address, VERIFIER])
      assert.deepEqual(await thresholdOf(mlp, wasm, other.address), none)
    })
    it('postThreshold reverts NotRegistered(account, VERIFIER) for a solver-only account, however much it staked', async () => {
      const {solver} = ctx.actors
      await registryWrite(ctx, solver, 'deposit', [], {value: parseEther('10')})
      await expectRevert(thresholdsWrite(ctx, solver, 'postThreshold', [mlp, wasm, THRESHOLD, profile]), 'NotRegistered', [solver.address, VERIFIER])
      assert.deepEqual(await thresholdOf(mlp, wasm, solver.address), none)
    })
  })
})
