import assert from 'node:assert/strict'

import {getAddress, parseEther, zeroAddress} from 'viem'

import {defaultMarketParams, defaultProtocolParams, type MarketParams, type ProtocolParams, type WorkTableParams} from '../../src/chain/deployContracts.js'
import {protocolConfigAbi, protocolConfigBytecode} from '../../src/chain/generated/index.js'
import {defaultWorkTable} from '../../src/ml/estimate/workTable.js'
import {configWrite, expectEvents, expectRevert, receiptOf, useChain} from './helpers/chain.js'

/** Every check of docs/disputes.md ("ProtocolConfig"): a field, a value it rejects, and the name the error carries. */
const invalid: [string, Partial<ProtocolParams>, string][] = [
  ['slash shares summing to 9999', {slashBurnBps: 1999}, 'slashShares'],
  ['slash shares summing to 10001', {slashWinnerBps: 5001}, 'slashShares'],
  ['slash shares overflowing uint16 sums', {slashWinnerBps: 65535, slashTreasuryBps: 65535, slashBurnBps: 10002}, 'slashShares'],
  ['taxBps 10001', {taxBps: 10001}, 'taxBps'],
  ['forcedErrorBps 10001', {forcedErrorBps: 10001}, 'forcedErrorBps'],
  ['challengeWindowBlocks 0', {challengeWindowBlocks: 0n}, 'challengeWindowBlocks'],
  ['challengeWindowBlocks 100001', {challengeWindowBlocks: 100001n}, 'challengeWindowBlocks'],
  ['openWindowBlocks 0', {openWindowBlocks: 0n}, 'openWindowBlocks'],
  ['openWindowBlocks 100001', {openWindowBlocks: 100001n}, 'openWindowBlocks'],
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

const MAX_TIMEOUT = 365n * 24n * 3600n
const MAX_PRICE = 10n ** 30n

/** docs/market.md, "Parameters": the market defaults, with the contract's integer types. */
const marketDefaults: MarketParams = {
  initialPrice: 10n ** 13n,
  priceFloor: 10n ** 11n,
  priceCeiling: 10n ** 16n,
  priceStepBps: 1250,
  targetUtilizationBps: 8000,
  priceEpochBlocks: 5,
  verifierFeeBps: 2000,
  timeoutSlashBps: 2500,
  claimTimeoutSeconds: 3600n,
  trainingBaseSeconds: 120n,
  minWorkUnitsPerSecond: 50n,
  verificationTimeoutSeconds: 600n,
}

/** docs/market.md, section 1: the work table defaults, with the contract's integer types. */
const workDefaults: WorkTableParams = {
  matmulMilli: 1000,
  convMilli: 1000,
  elementwiseMilli: 1000,
  transcendentalMilli: 4000,
  flopsPerWorkUnit: 1_000_000,
  maxSteps: 100_000n,
  maxLayers: 32,
  maxTensorElements: 16_777_216n,
  maxBatchSize: 1024,
  maxWorkUnits: 1_000_000_000n,
}

/** Every bound of checkMarketParams: a change, and the name InvalidParameter carries. */
const invalidMarket: [string, Partial<MarketParams>, string][] = [
  ['priceFloor 0', {priceFloor: 0n, initialPrice: 0n}, 'priceFloor'],
  ['priceCeiling below the floor', {priceCeiling: 10n ** 11n - 1n}, 'priceCeiling'],
  ['priceCeiling above MAX_PRICE', {priceCeiling: MAX_PRICE + 1n}, 'priceCeiling'],
  ['initialPrice below the floor', {initialPrice: 10n ** 11n - 1n}, 'initialPrice'],
  ['initialPrice above the ceiling', {initialPrice: 10n ** 16n + 1n}, 'initialPrice'],
  ['priceStepBps 0', {priceStepBps: 0}, 'priceStepBps'],
  ['priceStepBps 5001', {priceStepBps: 5001}, 'priceStepBps'],
  ['targetUtilizationBps 0', {targetUtilizationBps: 0}, 'targetUtilizationBps'],
  ['targetUtilizationBps 10001', {targetUtilizationBps: 10001}, 'targetUtilizationBps'],
  ['priceEpochBlocks 0', {priceEpochBlocks: 0}, 'priceEpochBlocks'],
  ['priceEpochBlocks 100001', {priceEpochBlocks: 100001}, 'priceEpochBlocks'],
  ['verifierFeeBps 10001', {verifierFeeBps: 10001}, 'verifierFeeBps'],
  ['timeoutSlashBps 10001', {timeoutSlashBps: 10001}, 'timeoutSlashBps'],
  ['claimTimeoutSeconds 0', {claimTimeoutSeconds: 0n}, 'claimTimeoutSeconds'],
  ['claimTimeoutSeconds above MAX_TIMEOUT', {claimTimeoutSeconds: MAX_TIMEOUT + 1n}, 'claimTimeoutSeconds'],
  ['trainingBaseSeconds above MAX_TIMEOUT', {trainingBaseSeconds: MAX_TIMEOUT + 1n}, 'trainingBaseSeconds'],
  ['minWorkUnitsPerSecond 0', {minWorkUnitsPerSecond: 0n}, 'minWorkUnitsPerSecond'],
  ['verificationTimeoutSeconds 0', {verificationTimeoutSeconds: 0n}, 'verificationTimeoutSeconds'],
  ['verificationTimeoutSeconds above MAX_TIMEOUT', {verificationTimeoutSeconds: MAX_TIMEOUT + 1n}, 'verificationTimeoutSeconds'],
]

/** Every bound of checkWorkTable. */
const invalidWork: [string, Partial<WorkTableParams>, string][] = [
  ...(['matmulMilli', 'convMilli', 'elementwiseMilli', 'transcendentalMilli'] as const).flatMap((field): [string, Partial<WorkTableParams>, string][] => [
    [`${field} 0`, {[field]: 0}, field],
    [`${field} 1000001`, {[field]: 1_000_001}, field],
  ]),
  ['flopsPerWorkUnit 0', {flopsPerWorkUnit: 0}, 'flopsPerWorkUnit'],
  ['maxSteps 0', {maxSteps: 0n}, 'maxSteps'],
  ['maxSteps above MAX_STEPS (2^40 - 1)', {maxSteps: 2n ** 40n}, 'maxSteps'],
  ['maxLayers 0', {maxLayers: 0}, 'maxLayers'],
  ['maxTensorElements 0', {maxTensorElements: 0n}, 'maxTensorElements'],
  ['maxBatchSize 0', {maxBatchSize: 0}, 'maxBatchSize'],
  ['maxWorkUnits 0', {maxWorkUnits: 0n}, 'maxWorkUnits'],
]

describe('ProtocolConfig (on anvil)', () => {
  const ctx = useChain()
  const read = <const fn extends 'params' | 'defaultParams' | 'owner' | 'marketParams' | 'defaultMarketParams' | 'workTable' | 'defaultWorkTable'>(
    functionName: fn,
    address = ctx.system.config,
  ) => ctx.publicClient.readContract({address, abi: protocolConfigAbi, functionName})

  it('starts with the defaults of docs/disputes.md, owned by its deployer', async () => {
    assert.deepEqual(await read('params'), defaultProtocolParams)
    assert.deepEqual(await read('defaultParams'), {
      solverStake: parseEther('1'),
      verifierStake: parseEther('0.5'),
      challengeDeposit: parseEther('0.2'),
      challengeWindowBlocks: 5n,
      openWindowBlocks: 3n,
      revealWindowBlocks: 3n,
      roundTimeoutBlocks: 10n,
      committeeTimeoutBlocks: 20n,
      taxBps: 500,
      slashWinnerBps: 5000,
      slashTreasuryBps: 3000,
      slashBurnBps: 2000,
      forcedErrorBps: 1000,
      jackpotCap: parseEther('1'),
      maxChallengers: 3,
      committeeSize: 3,
      maxOnchainElements: 4096,
    })
    assert.equal(await read('owner'), ctx.actors.deployer.address)
  })

  it('the constructor emits OwnershipTransferred and ParamsUpdated with the defaults', async () => {
    const hash = await ctx.actors.other.wallet.deployContract({abi: protocolConfigAbi, bytecode: protocolConfigBytecode, args: []})
    const receipt = await receiptOf(ctx.publicClient, hash)
    const config = getAddress(receipt.contractAddress!)
    assert.equal(await read('owner', config), ctx.actors.other.address)
    const logs = await ctx.publicClient.getContractEvents({address: config, abi: protocolConfigAbi, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber})
    assert.deepEqual(
      logs.map((log) => [log.eventName, log.args]),
      [
        ['OwnershipTransferred', {previousOwner: zeroAddress, newOwner: ctx.actors.other.address}],
        ['ParamsUpdated', {params: defaultProtocolParams}],
        ['MarketParamsUpdated', {params: marketDefaults}],
        ['WorkTableUpdated', {table: workDefaults}],
      ],
    )
    assert.deepEqual(await read('marketParams', config), marketDefaults)
    assert.deepEqual(await read('workTable', config), workDefaults)
  })

  it('the market and work-table defaults are docs/market.md\'s, and the TypeScript mirrors equal them', async () => {
    assert.deepEqual(await read('defaultMarketParams'), marketDefaults)
    assert.deepEqual(defaultMarketParams, marketDefaults, 'src/chain/deployContracts.ts defaultMarketParams')
    assert.deepEqual(await read('defaultWorkTable'), workDefaults)
    // The estimator's table (numbers) is the contract's.
    const table = await read('defaultWorkTable')
    assert.deepEqual(
      defaultWorkTable,
      Object.fromEntries(Object.entries(table).map(([key, value]) => [key, Number(value)])),
      'src/ml/estimate/workTable.ts defaultWorkTable',
    )
  })

  describe('market parameters', () => {
    it('setMarketParams replaces every field and emits MarketParamsUpdated; the extremes of every range are accepted', async () => {
      const high: MarketParams = {
        initialPrice: MAX_PRICE,
        priceFloor: MAX_PRICE,
        priceCeiling: MAX_PRICE,
        priceStepBps: 5000,
        targetUtilizationBps: 10000,
        priceEpochBlocks: 100000,
        verifierFeeBps: 10000,
        timeoutSlashBps: 10000,
        claimTimeoutSeconds: MAX_TIMEOUT,
        trainingBaseSeconds: MAX_TIMEOUT,
        minWorkUnitsPerSecond: 2n ** 64n - 1n,
        verificationTimeoutSeconds: MAX_TIMEOUT,
      }
      const result = await configWrite(ctx, ctx.actors.deployer, 'setMarketParams', [high])
      expectEvents(result.events, [{eventName: 'MarketParamsUpdated', args: {params: high}}])
      assert.deepEqual(await read('marketParams'), high)
      const low: MarketParams = {
        initialPrice: 1n,
        priceFloor: 1n,
        priceCeiling: 1n,
        priceStepBps: 1,
        targetUtilizationBps: 1,
        priceEpochBlocks: 1,
        verifierFeeBps: 0,
        timeoutSlashBps: 0,
        claimTimeoutSeconds: 1n,
        trainingBaseSeconds: 0n,
        minWorkUnitsPerSecond: 1n,
        verificationTimeoutSeconds: 1n,
      }
      await configWrite(ctx, ctx.actors.deployer, 'setMarketParams', [low])
      assert.deepEqual(await read('marketParams'), low)
      // The other tables are untouched.
      assert.deepEqual(await read('params'), ctx.params.config)
      assert.deepEqual(await read('workTable'), workDefaults)
    })

    for (const [what, change, name] of invalidMarket) {
      it(`setMarketParams reverts InvalidParameter("${name}") for ${what}, and checkMarketParams() agrees`, async () => {
        const params = {...marketDefaults, ...change}
        await expectRevert(configWrite(ctx, ctx.actors.deployer, 'setMarketParams', [params]), 'InvalidParameter', [name])
        await expectRevert(
          ctx.publicClient.readContract({address: ctx.system.config, abi: protocolConfigAbi, functionName: 'checkMarketParams', args: [params]}),
          'InvalidParameter',
          [name],
        )
        assert.deepEqual(await read('marketParams'), ctx.params.market)
      })
    }
  })

  describe('work table', () => {
    it('setWorkTable replaces every field and emits WorkTableUpdated; the extremes of every range are accepted', async () => {
      const high: WorkTableParams = {
        matmulMilli: 1_000_000,
        convMilli: 1_000_000,
        elementwiseMilli: 1_000_000,
        transcendentalMilli: 1_000_000,
        flopsPerWorkUnit: 2 ** 32 - 1,
        maxSteps: 2n ** 40n - 1n,
        maxLayers: 2 ** 32 - 1,
        maxTensorElements: 2n ** 64n - 1n,
        maxBatchSize: 2 ** 32 - 1,
        maxWorkUnits: 2n ** 64n - 1n,
      }
      const result = await configWrite(ctx, ctx.actors.deployer, 'setWorkTable', [high])
      expectEvents(result.events, [{eventName: 'WorkTableUpdated', args: {table: high}}])
      assert.deepEqual(await read('workTable'), high)
      const low: WorkTableParams = {
        matmulMilli: 1,
        convMilli: 1,
        elementwiseMilli: 1,
        transcendentalMilli: 1,
        flopsPerWorkUnit: 1,
        maxSteps: 1n,
        maxLayers: 1,
        maxTensorElements: 1n,
        maxBatchSize: 1,
        maxWorkUnits: 1n,
      }
      await configWrite(ctx, ctx.actors.deployer, 'setWorkTable', [low])
      assert.deepEqual(await read('workTable'), low)
      assert.deepEqual(await read('marketParams'), ctx.params.market)
    })

    for (const [what, change, name] of invalidWork) {
      it(`setWorkTable reverts InvalidParameter("${name}") for ${what}, and checkWorkTable() agrees`, async () => {
        const table = {...workDefaults, ...change}
        await expectRevert(configWrite(ctx, ctx.actors.deployer, 'setWorkTable', [table]), 'InvalidParameter', [name])
        await expectRevert(
          ctx.publicClient.readContract({address: ctx.system.config, abi: protocolConfigAbi, functionName: 'checkWorkTable', args: [table]}),
          'InvalidParameter',
          [name],
        )
        assert.deepEqual(await read('workTable'), workDefaults)
      })
    }
  })

  it('setParams replaces every field and emits ParamsUpdated; the extremes of every range are accepted', async () => {
    const extremes: ProtocolParams = {
      solverStake: 0n,
      // The largest amounts the packed struct holds: stakes in 96 bits, deposits and the jackpot cap in 128.
      verifierStake: 2n ** 96n - 1n,
      challengeDeposit: 1n,
      challengeWindowBlocks: 1n,
      openWindowBlocks: 100000n,
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

  it('setParams, setMarketParams, setWorkTable and transferOwnership revert NotOwner(caller) for anyone but the owner', async () => {
    await expectRevert(configWrite(ctx, ctx.actors.other, 'setParams', [defaultProtocolParams]), 'NotOwner', [ctx.actors.other.address])
    await expectRevert(configWrite(ctx, ctx.actors.other, 'setMarketParams', [marketDefaults]), 'NotOwner', [ctx.actors.other.address])
    await expectRevert(configWrite(ctx, ctx.actors.other, 'setWorkTable', [workDefaults]), 'NotOwner', [ctx.actors.other.address])
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
