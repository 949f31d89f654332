import {type Address, type Hash, parseEther, type TransactionReceipt} from 'viem'

import type {GensynPublicClient, GensynWalletClient} from './clients.js'
import {DeployError} from './errors.js'
import {
  roleRegistryAbi,
  roleRegistryBytecode,
  taskMarketAbi,
  taskMarketBytecode,
  thresholdRegistryAbi,
  thresholdRegistryBytecode,
} from './generated/index.js'

export type DeployParams = {
  /** Seconds between requestUnbond and withdraw. */
  unbondingDelay?: bigint | undefined
  /** Receives slashed stake; defaults to the deployer. */
  treasury?: Address | undefined
  /** Stake (wei) a solver locks per claimed task. */
  solverStake?: bigint | undefined
  /** Stake (wei) a verifier locks per claimed verification. */
  verifierStake?: bigint | undefined
  /** Seconds between a verdict and settlement. */
  challengeWindow?: bigint | undefined
}

export type ResolvedDeployParams = {[K in keyof DeployParams]-?: NonNullable<DeployParams[K]>}

/** Devnet defaults: short delays so a run finishes in minutes. */
export const defaultDeployParams = {
  unbondingDelay: 60n,
  solverStake: parseEther('1'),
  verifierStake: parseEther('0.5'),
  challengeWindow: 5n,
} as const satisfies Omit<ResolvedDeployParams, 'treasury'>

export type DeployedContracts = {
  registry: Address
  market: Address
  /** ThresholdRegistry: profiled distance thresholds per (model class, runtime class), posted by verifiers. */
  thresholds: Address
  /** Block of the registry deployment: scan events from here. */
  deployBlock: bigint
  /** Gas of the four transactions (registry, market, setMarket, thresholds). */
  gasUsed: bigint
  params: ResolvedDeployParams
}

export type DeployContractsParameters = {
  publicClient: GensynPublicClient
  walletClient: GensynWalletClient
  params?: DeployParams | undefined
}

/**
 * Deploys RoleRegistry and TaskMarket from the wallet's account, wires them (`registry.setMarket`), then
 * deploys ThresholdRegistry on the registry. ThresholdRegistry comes last so that the registry and market keep
 * the addresses they had before it existed (nonces 0 and 1 of a fresh deployer).
 * Transactions are sent one after the other, each after the previous receipt, so it works the same on an
 * automining anvil, an interval-mining one, and a real chain.
 */
export async function deployContracts({publicClient, walletClient, params = {}}: DeployContractsParameters): Promise<DeployedContracts> {
  const resolved: ResolvedDeployParams = {
    unbondingDelay: params.unbondingDelay ?? defaultDeployParams.unbondingDelay,
    treasury: params.treasury ?? walletClient.account.address,
    solverStake: params.solverStake ?? defaultDeployParams.solverStake,
    verifierStake: params.verifierStake ?? defaultDeployParams.verifierStake,
    challengeWindow: params.challengeWindow ?? defaultDeployParams.challengeWindow,
  }

  const registryReceipt = await confirm(
    publicClient,
    'RoleRegistry deployment',
    await walletClient.deployContract({
      abi: roleRegistryAbi,
      bytecode: roleRegistryBytecode,
      args: [resolved.unbondingDelay, resolved.treasury],
    }),
  )
  const registry = deployedAddress(registryReceipt, 'RoleRegistry')

  const marketReceipt = await confirm(
    publicClient,
    'TaskMarket deployment',
    await walletClient.deployContract({
      abi: taskMarketAbi,
      bytecode: taskMarketBytecode,
      args: [registry, resolved.treasury, resolved.solverStake, resolved.verifierStake, resolved.challengeWindow],
    }),
  )
  const market = deployedAddress(marketReceipt, 'TaskMarket')

  const wireReceipt = await confirm(
    publicClient,
    'RoleRegistry.setMarket',
    await walletClient.writeContract({address: registry, abi: roleRegistryAbi, functionName: 'setMarket', args: [market]}),
  )

  const wired = await publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'market'})
  if (wired.toLowerCase() !== market.toLowerCase()) {
    throw new DeployError(`RoleRegistry ${registry}: market() is ${wired}, expected ${market}`)
  }

  const thresholdsReceipt = await confirm(
    publicClient,
    'ThresholdRegistry deployment',
    await walletClient.deployContract({abi: thresholdRegistryAbi, bytecode: thresholdRegistryBytecode, args: [registry]}),
  )
  const thresholds = deployedAddress(thresholdsReceipt, 'ThresholdRegistry')

  return {
    registry,
    market,
    thresholds,
    deployBlock: registryReceipt.blockNumber,
    gasUsed: registryReceipt.gasUsed + marketReceipt.gasUsed + wireReceipt.gasUsed + thresholdsReceipt.gasUsed,
    params: resolved,
  }
}

async function confirm(publicClient: GensynPublicClient, what: string, hash: Hash): Promise<TransactionReceipt> {
  const receipt = await publicClient.waitForTransactionReceipt({hash})
  if (receipt.status !== 'success') throw new DeployError(`${what} reverted (transaction ${hash})`)
  return receipt
}

function deployedAddress(receipt: TransactionReceipt, name: string): Address {
  if (!receipt.contractAddress) {
    throw new DeployError(`${name} deployment: no contract address in receipt ${receipt.transactionHash}`)
  }
  return receipt.contractAddress
}
