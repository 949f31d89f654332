import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type ContractFunctionReturnType,
  type Hash,
  parseEther,
  type TransactionReceipt,
} from 'viem'

import type {GensynPublicClient, GensynWalletClient} from './clients.js'
import {DeployError} from './errors.js'
import {
  pinpointGameAbi,
  pinpointGameBytecode,
  protocolConfigAbi,
  protocolConfigBytecode,
  roleRegistryAbi,
  roleRegistryBytecode,
  taskMarketAbi,
  taskMarketBytecode,
  thresholdRegistryAbi,
  thresholdRegistryBytecode,
} from './generated/index.js'

/** ProtocolConfig.Params (docs/disputes.md, "ProtocolConfig"): amounts in wei, windows and timeouts in blocks. */
export type ProtocolParams = ContractFunctionReturnType<typeof protocolConfigAbi, 'view', 'params'>

/** The defaults ProtocolConfig's constructor sets (the docs/disputes.md table); checked against the contract. */
export const defaultProtocolParams: Readonly<ProtocolParams> = {
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
}

export type DeployParams = {
  /** Seconds between requestUnbond and withdraw. */
  unbondingDelay?: bigint | undefined
  /** Receives slashed stake; defaults to the deployer. */
  treasury?: Address | undefined
  /** Overrides of ProtocolConfig's defaults; the fields left out keep them. */
  config?: Partial<ProtocolParams> | undefined
  /** Ether (wei) sent to TaskMarket.fundJackpot once everything is wired; 0 sends nothing. */
  jackpotSeed?: bigint | undefined
}

export type ResolvedDeployParams = {
  unbondingDelay: bigint
  treasury: Address
  config: ProtocolParams
  jackpotSeed: bigint
}

/** Devnet defaults: short delays so a run finishes in minutes. */
export const defaultDeployParams = {unbondingDelay: 60n, jackpotSeed: 0n} as const

export type DeployedContracts = {
  registry: Address
  /** ProtocolConfig: stakes, windows, shares and limits, owned by the deployer. */
  config: Address
  market: Address
  /** ThresholdRegistry: profiled distance thresholds per (model class, runtime class), posted by verifiers. */
  thresholds: Address
  /** PinpointGame: the dispute game the market opens (its opener). */
  game: Address
  /** Block of the registry deployment: scan events from here. */
  deployBlock: bigint
  /** Gas of every transaction sent. */
  gasUsed: bigint
  params: ResolvedDeployParams
}

export type DeployContractsParameters = {
  publicClient: GensynPublicClient
  walletClient: GensynWalletClient
  params?: DeployParams | undefined
}

/**
 * Deploys RoleRegistry, ProtocolConfig, TaskMarket, ThresholdRegistry and PinpointGame from the wallet's
 * account, in that order (nonces 0-4 of a fresh deployer, so their addresses never depend on the options),
 * then wires them: `registry.setMarket(market)`, `market.setGame(game)`, `config.setParams` when any parameter
 * is overridden, and `market.fundJackpot` with the jackpot seed.
 * Transactions are sent one after the other, each after the previous receipt, so it works the same on an
 * automining anvil, an interval-mining one, and a real chain.
 */
export async function deployContracts({publicClient, walletClient, params = {}}: DeployContractsParameters): Promise<DeployedContracts> {
  const overrides = Object.fromEntries(Object.entries(params.config ?? {}).filter(([, value]) => value !== undefined))
  const resolved: ResolvedDeployParams = {
    unbondingDelay: params.unbondingDelay ?? defaultDeployParams.unbondingDelay,
    treasury: params.treasury ?? walletClient.account.address,
    config: {...defaultProtocolParams, ...overrides},
    jackpotSeed: params.jackpotSeed ?? defaultDeployParams.jackpotSeed,
  }
  const receipts: TransactionReceipt[] = []
  const send = async (what: string, hash: Hash) => {
    const receipt = await confirm(publicClient, what, hash)
    receipts.push(receipt)
    return receipt
  }

  const registry = deployedAddress(
    await send(
      'RoleRegistry deployment',
      await walletClient.deployContract({abi: roleRegistryAbi, bytecode: roleRegistryBytecode, args: [resolved.unbondingDelay, resolved.treasury]}),
    ),
    'RoleRegistry',
  )
  const config = deployedAddress(
    await send('ProtocolConfig deployment', await walletClient.deployContract({abi: protocolConfigAbi, bytecode: protocolConfigBytecode, args: []})),
    'ProtocolConfig',
  )
  const market = deployedAddress(
    await send(
      'TaskMarket deployment',
      await walletClient.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args: [registry, resolved.treasury, config]}),
    ),
    'TaskMarket',
  )
  const thresholds = deployedAddress(
    await send(
      'ThresholdRegistry deployment',
      await walletClient.deployContract({abi: thresholdRegistryAbi, bytecode: thresholdRegistryBytecode, args: [registry]}),
    ),
    'ThresholdRegistry',
  )
  const game = deployedAddress(
    await send(
      'PinpointGame deployment',
      await walletClient.deployContract({abi: pinpointGameAbi, bytecode: pinpointGameBytecode, args: [market, registry, config]}),
    ),
    'PinpointGame',
  )

  await send('RoleRegistry.setMarket', await walletClient.writeContract({address: registry, abi: roleRegistryAbi, functionName: 'setMarket', args: [market]}))
  await send('TaskMarket.setGame', await walletClient.writeContract({address: market, abi: taskMarketAbi, functionName: 'setGame', args: [game]}))
  if (Object.keys(overrides).length > 0) {
    // Simulated first so that a rejected override names its field (InvalidParameter(name)).
    try {
      await publicClient.simulateContract({
        address: config,
        abi: protocolConfigAbi,
        functionName: 'setParams',
        args: [resolved.config],
        account: walletClient.account,
      })
    } catch (error) {
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined
      const name = reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName === 'InvalidParameter' ? reverted.data.args?.[0] : undefined
      throw new DeployError(
        name === undefined ? 'ProtocolConfig.setParams: the overrides were rejected' : `ProtocolConfig parameter ${String(name)}: out of range (docs/disputes.md, "ProtocolConfig")`,
        {cause: error},
      )
    }
    await send(
      'ProtocolConfig.setParams',
      await walletClient.writeContract({address: config, abi: protocolConfigAbi, functionName: 'setParams', args: [resolved.config]}),
    )
  }
  if (resolved.jackpotSeed > 0n) {
    await send(
      'TaskMarket.fundJackpot',
      await walletClient.writeContract({address: market, abi: taskMarketAbi, functionName: 'fundJackpot', value: resolved.jackpotSeed}),
    )
  }

  const [wiredMarket, wiredGame] = await Promise.all([
    publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'market'}),
    publicClient.readContract({address: market, abi: taskMarketAbi, functionName: 'game'}),
  ])
  if (wiredMarket.toLowerCase() !== market.toLowerCase()) throw new DeployError(`RoleRegistry ${registry}: market() is ${wiredMarket}, expected ${market}`)
  if (wiredGame.toLowerCase() !== game.toLowerCase()) throw new DeployError(`TaskMarket ${market}: game() is ${wiredGame}, expected ${game}`)

  return {
    registry,
    config,
    market,
    thresholds,
    game,
    deployBlock: receipts[0]!.blockNumber,
    gasUsed: receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n),
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
