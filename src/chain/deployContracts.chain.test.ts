import assert from 'node:assert/strict'

import {getAddress, keccak256, parseEther, stringToHex, zeroHash} from 'viem'

import {type Anvil, createAnvil} from './anvil.js'
import {createClients, type SignerClients} from './clients.js'
import {defaultDeployParams, defaultMarketParams, defaultProtocolParams, deployContracts, type DeployedContracts} from './deployContracts.js'
import {DeployError} from './errors.js'
import {
  pinpointGameAbi,
  protocolConfigAbi,
  roleRegistryAbi,
  solverBookAbi,
  taskMarketAbi,
  taskMarketDisputesAbi,
  thresholdRegistryAbi,
} from './generated/index.js'

const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const TREASURY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

async function views(clients: SignerClients, deployed: DeployedContracts) {
  const {publicClient} = clients
  const {registry, market, config, game, book, disputes} = deployed
  const r = <const fn extends 'owner' | 'treasury' | 'unbondingDelay' | 'market'>(functionName: fn) =>
    publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName})
  const m = <const fn extends 'registry' | 'treasury' | 'config' | 'game' | 'owner' | 'jackpot' | 'book' | 'disputes'>(functionName: fn) =>
    publicClient.readContract({address: market, abi: taskMarketAbi, functionName})
  const b = <const fn extends 'registry' | 'config' | 'owner' | 'market'>(functionName: fn) => publicClient.readContract({address: book, abi: solverBookAbi, functionName})
  const d = <const fn extends 'registry' | 'config' | 'treasury' | 'book'>(functionName: fn) =>
    publicClient.readContract({address: disputes, abi: taskMarketDisputesAbi, functionName})
  return {
    owner: await r('owner'),
    registryTreasury: await r('treasury'),
    unbondingDelay: await r('unbondingDelay'),
    wiredMarket: getAddress(await r('market')),
    marketRegistry: getAddress(await m('registry')),
    marketTreasury: await m('treasury'),
    marketConfig: getAddress(await m('config')),
    marketGame: getAddress(await m('game')),
    marketBook: getAddress(await m('book')),
    marketDisputes: getAddress(await m('disputes')),
    marketOwner: await m('owner'),
    bookWiring: [await b('registry'), await b('config'), await b('owner'), await b('market')].map((a) => getAddress(a)),
    disputesWiring: [await d('registry'), await d('config'), await d('treasury'), await d('book')].map((a) => getAddress(a)),
    jackpot: await m('jackpot'),
    marketBalance: await publicClient.getBalance({address: market}),
    configOwner: await publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'owner'}),
    params: await publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'params'}),
    marketParams: await publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'marketParams'}),
    gameOpener: getAddress(await publicClient.readContract({address: game, abi: pinpointGameAbi, functionName: 'opener'})),
  }
}

describe('deployContracts', () => {
  let anvil: Anvil
  let clients: SignerClients
  before(async () => {
    anvil = createAnvil()
    await anvil.start()
    clients = await createClients({rpcUrl: anvil.rpcUrl, privateKey: KEY_0})
  })
  after(() => anvil.stop())

  it('deploys the seven contracts with devnet defaults, wires registry, book, market and game, and reports gas', async () => {
    const deployed = await deployContracts(clients)
    assert.deepEqual(defaultDeployParams, {unbondingDelay: 60n, jackpotSeed: 0n})
    const deployer = clients.account.address
    const onChainDefaults = await clients.publicClient.readContract({address: deployed.config, abi: protocolConfigAbi, functionName: 'defaultParams'})
    assert.deepEqual(onChainDefaults, defaultProtocolParams, 'defaultProtocolParams mirrors ProtocolConfig.defaultParams()')
    const onChainMarketDefaults = await clients.publicClient.readContract({address: deployed.config, abi: protocolConfigAbi, functionName: 'defaultMarketParams'})
    assert.deepEqual(onChainMarketDefaults, defaultMarketParams, 'defaultMarketParams mirrors ProtocolConfig.defaultMarketParams()')
    const workTable = await clients.publicClient.readContract({address: deployed.config, abi: protocolConfigAbi, functionName: 'workTable'})
    assert.deepEqual(await views(clients, deployed), {
      owner: deployer,
      registryTreasury: deployer,
      unbondingDelay: 60n,
      wiredMarket: getAddress(deployed.market),
      marketRegistry: getAddress(deployed.registry),
      marketTreasury: deployer,
      marketConfig: getAddress(deployed.config),
      marketGame: getAddress(deployed.game),
      marketBook: getAddress(deployed.book),
      marketDisputes: getAddress(deployed.disputes),
      marketOwner: deployer,
      bookWiring: [deployed.registry, deployed.config, deployer, deployed.market].map((a) => getAddress(a)),
      disputesWiring: [deployed.registry, deployed.config, deployer, deployed.book].map((a) => getAddress(a)),
      jackpot: 0n,
      marketBalance: 0n,
      configOwner: deployer,
      params: defaultProtocolParams,
      marketParams: defaultMarketParams,
      gameOpener: getAddress(deployed.market),
    })
    assert.deepEqual(deployed.params, {unbondingDelay: 60n, treasury: deployer, config: defaultProtocolParams, market: defaultMarketParams, workTable, jackpotSeed: 0n})
    // ThresholdRegistry is deployed on the same registry, and starts empty.
    const thresholdsRegistry = await clients.publicClient.readContract({address: deployed.thresholds, abi: thresholdRegistryAbi, functionName: 'registry'})
    assert.equal(getAddress(thresholdsRegistry), getAddress(deployed.registry))
    const none = await clients.publicClient.readContract({
      address: deployed.thresholds,
      abi: thresholdRegistryAbi,
      functionName: 'thresholdOf',
      args: [keccak256(stringToHex('mlp')), keccak256(stringToHex('wasm')), deployer],
    })
    assert.deepEqual(none, [0n, zeroHash, 0n])
    const all = [deployed.registry, deployed.config, deployed.book, deployed.disputes, deployed.market, deployed.thresholds, deployed.game]
    assert.equal(new Set(all).size, 7)
    // EIP-170: no runtime code above 24,576 bytes (anvil would refuse it anyway; this shows the margin).
    for (const address of all) {
      const code = await clients.publicClient.getCode({address})
      assert.ok(code && code.length > 2, `no code at ${address}`)
      assert.ok((code.length - 2) / 2 <= 24_576, `${address}: ${(code.length - 2) / 2} bytes of runtime code`)
    }

    // deployBlock is the registry's block; gasUsed is the sum over the ten transactions (seven deployments,
    // two setMarket, setGame; no parameter overrides and no jackpot seed with the defaults).
    assert.equal(await countTransactions(clients, deployed), 10)
    const registryCreation = await clients.publicClient.getBlock({blockNumber: deployed.deployBlock, includeTransactions: true})
    assert.equal(registryCreation.transactions[0]?.to, null, 'the deploy block starts with the registry creation')
  })

  it('deploys at fixed addresses: a fresh deployer gives the seven contracts nonces 0-6 whatever the options', async () => {
    for (const params of [{}, {config: {taxBps: 0}, market: {priceEpochBlocks: 2}, jackpotSeed: 5n}]) {
      const fresh = createAnvil()
      await fresh.start()
      try {
        const freshClients = await createClients({rpcUrl: fresh.rpcUrl, privateKey: KEY_0})
        const deployed = await deployContracts({...freshClients, params})
        assert.deepEqual(
          [deployed.registry, deployed.config, deployed.book, deployed.disputes, deployed.market, deployed.thresholds, deployed.game].map((a) => getAddress(a)),
          [
            '0x5FbDB2315678afecb367f032d93F642f64180aa3',
            '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
            '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
            '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
            '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9',
            '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707',
            '0x0165878A594ca255338adfa4d48449f69242Eb8F',
          ],
        )
      } finally {
        await fresh.stop()
      }
    }
  })

  it('applies every given parameter: unbonding delay, treasury, protocol, market and work-table overrides (others keep the defaults), jackpot seed', async () => {
    const config = {solverStake: 11n, verifierStake: 13n, challengeWindowBlocks: 17n, taxBps: 250, maxChallengers: 2} as const
    const market = {priceFloor: 5n, initialPrice: 7n, verifierFeeBps: 1000, claimTimeoutSeconds: 99n, minWorkUnitsPerSecond: undefined} as const
    const workTable = {maxSteps: 12n, convMilli: 1500} as const
    const deployed = await deployContracts({...clients, params: {unbondingDelay: 7n, treasury: TREASURY, config, market, workTable, jackpotSeed: parseEther('2')}})
    const seen = await views(clients, deployed)
    assert.equal(seen.unbondingDelay, 7n)
    assert.equal(seen.registryTreasury, TREASURY)
    assert.equal(seen.marketTreasury, TREASURY)
    assert.deepEqual(seen.params, {...defaultProtocolParams, ...config})
    const {minWorkUnitsPerSecond: _, ...setMarket} = market
    assert.deepEqual(seen.marketParams, {...defaultMarketParams, ...setMarket})
    const defaultTable = await clients.publicClient.readContract({address: deployed.config, abi: protocolConfigAbi, functionName: 'defaultWorkTable'})
    const table = await clients.publicClient.readContract({address: deployed.config, abi: protocolConfigAbi, functionName: 'workTable'})
    assert.deepEqual(table, {...defaultTable, ...workTable})
    assert.equal(seen.jackpot, parseEther('2'))
    assert.equal(seen.marketBalance, parseEther('2'))
    assert.deepEqual(deployed.params, {
      unbondingDelay: 7n,
      treasury: TREASURY,
      config: {...defaultProtocolParams, ...config},
      market: {...defaultMarketParams, ...setMarket},
      workTable: table,
      jackpotSeed: parseEther('2'),
    })
    // Seven deployments, three wirings, setParams, setMarketParams, setWorkTable and the jackpot seed.
    assert.equal(await countTransactions(clients, deployed), 14)
  })

  it('an override out of range fails the deployment naming the parameter', async () => {
    await assert.rejects(deployContracts({...clients, params: {config: {slashBurnBps: 1}}}), (error: unknown) => {
      assert.ok(error instanceof DeployError, String(error))
      assert.equal(error.shortMessage, 'ProtocolConfig parameter slashShares: out of range (docs/disputes.md, "ProtocolConfig")')
      return true
    })
    await assert.rejects(deployContracts({...clients, params: {config: {revealWindowBlocks: 0n}}}), /parameter revealWindowBlocks: out of range/)
    await assert.rejects(deployContracts({...clients, params: {market: {priceFloor: 0n}}}), (error: unknown) => {
      assert.ok(error instanceof DeployError, String(error))
      assert.equal(error.shortMessage, 'ProtocolConfig parameter priceFloor: out of range (docs/market.md, "Parameters")')
      return true
    })
    await assert.rejects(deployContracts({...clients, params: {workTable: {maxLayers: 0}}}), /parameter maxLayers: out of range \(docs\/market\.md/)
  })

  it('works on an interval-mining chain (a devnet with blockTime)', async () => {
    const slow = createAnvil({blockTime: 1})
    await slow.start()
    try {
      const slowClients = await createClients({rpcUrl: slow.rpcUrl, privateKey: KEY_0})
      const deployed = await deployContracts(slowClients)
      const seen = await views(slowClients, deployed)
      assert.equal(seen.wiredMarket, getAddress(deployed.market))
      assert.equal(seen.marketGame, getAddress(deployed.game))
    } finally {
      await slow.stop()
    }
  })
})

/** Counts the transactions from deployBlock to the head and checks that their gas sums to `gasUsed`. */
async function countTransactions(clients: SignerClients, deployed: DeployedContracts): Promise<number> {
  const latest = await clients.publicClient.getBlockNumber({cacheTime: 0})
  let gas = 0n
  let transactions = 0
  for (let number = deployed.deployBlock; number <= latest; number++) {
    const block = await clients.publicClient.getBlock({blockNumber: number, includeTransactions: true})
    for (const tx of block.transactions) {
      gas += (await clients.publicClient.getTransactionReceipt({hash: tx.hash})).gasUsed
      transactions++
    }
  }
  assert.equal(deployed.gasUsed, gas)
  return transactions
}
