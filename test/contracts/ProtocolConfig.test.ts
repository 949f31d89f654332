import assert from 'node:assert/strict'

import {getAddress, parseEther, zeroAddress} from 'viem'

import {defaultProtocolParams, type ProtocolParams} from '../../src/chain/deployContracts.js'
import {protocolConfigAbi, protocolConfigBytecode} from '../../src/chain/generated/index.js'
import {configWrite, expectEvents, expectRevert, useChain} from './helpers/chain.js'

/** Every check of docs/disputes.md ("ProtocolConfig"): a field, a value it rejects, and the name the error carries. */
const invalid: [string, Partial<ProtocolParams>, string][] = [
  ['slash shares summing to 9999', {slashBurnBps: 1999}, 'slashShares'],
  ['slash shares summing to 10001', {slashWinnerBps: 5001}, 'slashShares'],
  ['slash shares overflowing uint16 sums', {slashWinnerBps: 65535, slashTreasuryBps: 65535, slashBurnBps: 10002}, 'slashShares'],
  ['taxBps 10001', {taxBps: 10001}, 'taxBps'],
  ['forcedErrorBps 10001', {forcedErrorBps: 10001}, 'forcedErrorBps'],
  ['challengeWindowBlocks 0', {challengeWindowBlocks: 0n}, 'challengeWindowBlocks'],
  ['challengeWindowBlocks 100001', {challengeWindowBlocks: 100001n}, 'challengeWindowBlocks'],
  ['revealWindowBlocks 0', {revealWindowBlocks: 0n}, 'revealWindowBlocks'],
  ['revealWindowBlocks 100001', {revealWindowBlocks: 100001n}, 'revealWindowBlocks'],
  ['roundTimeoutBlocks 0', {roundTimeoutBlocks: 0n}, 'roundTimeoutBlocks'],
  ['roundTimeoutBlocks 2^64 - 1', {roundTimeoutBlocks: 2n ** 64n - 1n}, 'roundTimeoutBlocks'],
  ['committeeTimeoutBlocks 0', {committeeTimeoutBlocks: 0n}, 'committeeTimeoutBlocks'],
  ['committeeTimeoutBlocks 100001', {committeeTimeoutBlocks: 100001n}, 'committeeTimeoutBlocks'],
  ['maxChallengers 0', {maxChallengers: 0}, 'maxChallengers'],
  ['committeeSize 0', {committeeSize: 0}, 'committeeSize'],
  ['maxOnchainElements 0', {maxOnchainElements: 0}, 'maxOnchainElements'],
  ['maxOnchainElements 65537', {maxOnchainElements: 65537}, 'maxOnchainElements'],
]

describe('ProtocolConfig (on anvil)', () => {
  const ctx = useChain()
  const read = <const fn extends 'params' | 'defaultParams' | 'owner'>(functionName: fn, address = ctx.system.config) =>
    ctx.publicClient.readContract({address, abi: protocolConfigAbi, functionName})

  it('starts with the defaults of docs/disputes.md, owned by its deployer', async () => {
    assert.deepEqual(await read('params'), defaultProtocolParams)
    assert.deepEqual(await read('defaultParams'), {
      solverStake: parseEther('1'),
      verifierStake: parseEther('0.5'),
      challengeDeposit: parseEther('0.2'),
      challengeWindowBlocks: 5n,
      revealWindowBlocks: 3n,
      roundTimeoutBlocks: 10n,
      committeeTimeoutBlocks: 20n,
      taxBps: 500,
      slashWinnerBps: 5000,
      slashTreasuryBps: 3000,
      slashBurnBps: 2000,
      forcedErrorBps: 500,
      jackpotCap: parseEther('1'),
      maxChallengers: 3,
      committeeSize: 3,
      maxOnchainElements: 4096,
    })
    assert.equal(await read('owner'), ctx.actors.deployer.address)
  })

  it('the constructor emits OwnershipTransferred and ParamsUpdated with the defaults', async () => {
    const hash = await ctx.actors.other.wallet.deployContract({abi: protocolConfigAbi, bytecode: protocolConfigBytecode, args: []})
    const receipt = await ctx.publicClient.waitForTransactionReceipt({hash})
    const config = getAddress(receipt.contractAddress!)
    assert.equal(await read('owner', config), ctx.actors.other.address)
    const logs = await ctx.publicClient.getContractEvents({address: config, abi: protocolConfigAbi, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber})
    assert.deepEqual(
      logs.map((log) => [log.eventName, log.args]),
      [
        ['OwnershipTransferred', {previousOwner: zeroAddress, newOwner: ctx.actors.other.address}],
        ['ParamsUpdated', {params: defaultProtocolParams}],
      ],
    )
  })

  it('setParams replaces every field and emits ParamsUpdated; the extremes of every range are accepted', async () => {
    const extremes: ProtocolParams = {
      solverStake: 0n,
      verifierStake: 2n ** 256n - 1n,
      challengeDeposit: 1n,
      challengeWindowBlocks: 1n,
      revealWindowBlocks: 100000n,
      roundTimeoutBlocks: 1n,
      committeeTimeoutBlocks: 100000n,
      taxBps: 10000,
      slashWinnerBps: 0,
      slashTreasuryBps: 0,
      slashBurnBps: 10000,
      forcedErrorBps: 10000,
      jackpotCap: 0n,
      maxChallengers: 255,
      committeeSize: 1,
      maxOnchainElements: 65536,
    }
    const result = await configWrite(ctx, ctx.actors.deployer, 'setParams', [extremes])
    expectEvents(result.events, [{eventName: 'ParamsUpdated', args: {params: extremes}}])
    assert.deepEqual(await read('params'), extremes)
    const low = {...extremes, taxBps: 0, forcedErrorBps: 0, maxChallengers: 1, committeeSize: 255, maxOnchainElements: 1, slashWinnerBps: 10000, slashBurnBps: 0}
    await configWrite(ctx, ctx.actors.deployer, 'setParams', [low])
    assert.deepEqual(await read('params'), low)
    // The defaults stay what they were.
    assert.deepEqual(await read('defaultParams'), defaultProtocolParams)
  })

  for (const [what, change, name] of invalid) {
    it(`setParams reverts InvalidParameter("${name}") for ${what}, and check() agrees`, async () => {
      const params = {...defaultProtocolParams, ...change}
      await expectRevert(configWrite(ctx, ctx.actors.deployer, 'setParams', [params]), 'InvalidParameter', [name])
      await expectRevert(ctx.publicClient.readContract({address: ctx.system.config, abi: protocolConfigAbi, functionName: 'check', args: [params]}), 'InvalidParameter', [
        name,
      ])
      assert.deepEqual(await read('params'), defaultProtocolParams)
    })
  }

  it('setParams and transferOwnership revert NotOwner(caller) for anyone but the owner', async () => {
    await expectRevert(configWrite(ctx, ctx.actors.other, 'setParams', [defaultProtocolParams]), 'NotOwner', [ctx.actors.other.address])
    await expectRevert(configWrite(ctx, ctx.actors.other, 'transferOwnership', [ctx.actors.other.address]), 'NotOwner', [ctx.actors.other.address])
  })

  it('transferOwnership hands setParams over to the new owner (and away from the old one)', async () => {
    const {deployer, other} = ctx.actors
    const result = await configWrite(ctx, deployer, 'transferOwnership', [other.address])
    expectEvents(result.events, [{eventName: 'OwnershipTransferred', args: {previousOwner: deployer.address, newOwner: other.address}}])
    assert.equal(await read('owner'), other.address)
    await expectRevert(configWrite(ctx, deployer, 'setParams', [defaultProtocolParams]), 'NotOwner', [deployer.address])
    await configWrite(ctx, other, 'setParams', [{...defaultProtocolParams, taxBps: 1}])
    assert.equal((await read('params')).taxBps, 1)
  })

  it('transferOwnership reverts ZeroAddress for the zero address', async () => {
    await expectRevert(configWrite(ctx, ctx.actors.deployer, 'transferOwnership', [zeroAddress]), 'ZeroAddress', [])
  })
})
