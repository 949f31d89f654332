import assert from 'node:assert/strict'

import {type Address, getAddress, keccak256, parseEther, stringToHex, zeroAddress, zeroHash} from 'viem'

import {type Anvil, createAnvil} from './anvil.js'
import {createClients, type SignerClients} from './clients.js'
import {defaultDeployParams, deployContracts} from './deployContracts.js'
import {roleRegistryAbi, taskMarketAbi, thresholdRegistryAbi} from './generated/index.js'

const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const TREASURY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

async function views(clients: SignerClients, registry: Address, market: Address) {
  const {publicClient} = clients
  const r = <const fn extends 'owner' | 'treasury' | 'unbondingDelay' | 'market'>(functionName: fn) =>
    publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName})
  const m = <const fn extends 'registry' | 'treasury' | 'solverStake' | 'verifierStake' | 'challengeWindow'>(functionName: fn) =>
    publicClient.readContract({address: market, abi: taskMarketAbi, functionName})
  return {
    owner: await r('owner'),
    registryTreasury: await r('treasury'),
    unbondingDelay: await r('unbondingDelay'),
    wiredMarket: getAddress(await r('market')),
    marketRegistry: getAddress(await m('registry')),
    marketTreasury: await m('treasury'),
    solverStake: await m('solverStake'),
    verifierStake: await m('verifierStake'),
    challengeWindow: await m('challengeWindow'),
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

  it('deploys the three contracts with devnet defaults, wires the registry to the market and reports gas', async () => {
    const deployed = await deployContracts(clients)
    assert.deepEqual(defaultDeployParams, {
      unbondingDelay: 60n,
      solverStake: parseEther('1'),
      verifierStake: parseEther('0.5'),
      challengeWindow: 5n,
    })
    const deployer = clients.account.address
    assert.deepEqual(await views(clients, deployed.registry, deployed.market), {
      owner: deployer,
      registryTreasury: deployer,
      unbondingDelay: 60n,
      wiredMarket: getAddress(deployed.market),
      marketRegistry: getAddress(deployed.registry),
      marketTreasury: deployer,
      solverStake: parseEther('1'),
      verifierStake: parseEther('0.5'),
      challengeWindow: 5n,
    })
    assert.deepEqual(deployed.params, {...defaultDeployParams, treasury: deployer})
    // ThresholdRegistry is deployed on the same registry, and starts empty.
    const thresholdsRegistry = await clients.publicClient.readContract({address: deployed.thresholds, abi: thresholdRegistryAbi, functionName: 'registry'})
    assert.equal(getAddress(thresholdsRegistry), getAddress(deployed.registry))
    const none = await clients.publicClient.readContract({
      address: deployed.thresholds,
      abi: thresholdRegistryAbi,
      functionName: 'thresholdOf',
      args: [keccak256(stringToHex('mlp')), keccak256(stringToHex('wasm'))],
    })
    assert.deepEqual(none, [0n, zeroHash, zeroAddress, 0n])
    assert.equal(new Set([deployed.registry, deployed.market, deployed.thresholds]).size, 3)

    // deployBlock is the registry's block; gasUsed is the sum over the four transactions that followed.
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
    assert.equal(transactions, 4)
    assert.equal(deployed.gasUsed, gas)
    const registryCreation = await clients.publicClient.getBlock({blockNumber: deployed.deployBlock, includeTransactions: true})
    assert.equal(registryCreation.transactions[0]?.to, null, 'the deploy block starts with the registry creation')
  })

  it('keeps the registry and market at the addresses a fresh deployer always gave them (ThresholdRegistry comes last)', async () => {
    const fresh = createAnvil()
    await fresh.start()
    try {
      const freshClients = await createClients({rpcUrl: fresh.rpcUrl, privateKey: KEY_0})
      const deployed = await deployContracts(freshClients)
      assert.equal(getAddress(deployed.registry), '0x5FbDB2315678afecb367f032d93F642f64180aa3')
      assert.equal(getAddress(deployed.market), '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512')
      assert.equal(getAddress(deployed.thresholds), '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9')
    } finally {
      await fresh.stop()
    }
  })

  it('applies every given parameter', async () => {
    const params = {unbondingDelay: 7n, treasury: TREASURY, solverStake: 11n, verifierStake: 13n, challengeWindow: 17n} as const
    const deployed = await deployContracts({...clients, params})
    const seen = await views(clients, deployed.registry, deployed.market)
    assert.equal(seen.unbondingDelay, 7n)
    assert.equal(seen.registryTreasury, TREASURY)
    assert.equal(seen.marketTreasury, TREASURY)
    assert.equal(seen.solverStake, 11n)
    assert.equal(seen.verifierStake, 13n)
    assert.equal(seen.challengeWindow, 17n)
    assert.deepEqual(deployed.params, params)
  })

  it('works on an interval-mining chain (a devnet with blockTime)', async () => {
    const slow = createAnvil({blockTime: 1})
    await slow.start()
    try {
      const slowClients = await createClients({rpcUrl: slow.rpcUrl, privateKey: KEY_0})
      const deployed = await deployContracts(slowClients)
      const seen = await views(slowClients, deployed.registry, deployed.market)
      assert.equal(seen.wiredMarket, getAddress(deployed.market))
    } finally {
      await slow.stop()
    }
  })
})
