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
import {waitForReceipt} from './waitForReceipt.js'
import {
  pinpointGameAbi,
  pinpointGameBytecode,
  protocolConfigAbi,
  protocolConfigBytecode,
  roleRegistryAbi,
  roleRegistryBytecode,
  solverBookAbi,
  solverBookBytecode,
  taskMarketAbi,
  taskMarketBytecode,
  taskMarketDisputesAbi,
  taskMarketDisputesBytecode,
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
}

/** ProtocolConfig.MarketParams (docs/market.md, "Parameters"): prices in wei per work unit, timeouts in seconds. */
export type MarketParams = ContractFunctionReturnType<typeof protocolConfigAbi, 'view', 'marketParams'>

/** The market defaults ProtocolConfig's constructor sets (the docs/market.md table); checked against the contract. */
export const defaultMarketParams: Readonly<MarketParams> = {
  initialPrice: 10_000_000_000_000n,
  priceFloor: 100_000_000_000n,
  priceCeiling: 10_000_000_000_000_000n,
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

/**
 * ProtocolConfig.WorkTable as the contract returns it (bigints for its uint64 fields). The estimator's mirror is
 * `defaultWorkTable` of src/ml/estimate/workTable.ts (numbers), tested equal to the contract's defaults.
 */
export type WorkTableParams = ContractFunctionReturnType<typeof protocolConfigAbi, 'view', 'workTable'>

export type DeployParams = {
  /** Seconds between requestUnbond and withdraw. */
  unbondingDelay?: bigint | undefined
  /** Receives slashed stake; defaults to the deployer. */
  treasury?: Address | undefined
  /** Overrides of ProtocolConfig's defaults; the fields left out keep them. */
  config?: Partial<ProtocolParams> | undefined
  /** Overrides of ProtocolConfig's market parameters (price controller, fees, timeouts). */
  market?: Partial<MarketParams> | undefined
  /** Overrides of ProtocolConfig's work table (weights and limits). */
  workTable?: Partial<WorkTableParams> | undefined
  /** Ether (wei) sent to TaskMarket.fundJackpot once everything is wired; 0 sends nothing. */
  jackpotSeed?: bigint | undefined
}

export type ResolvedDeployParams = {
  unbondingDelay: bigint
  treasury: Address
  config: ProtocolParams
  market: MarketParams
  workTable: WorkTableParams
  jackpotSeed: bigint
}

/** Devnet defaults: short delays so a run finishes in minutes. */
export const defaultDeployParams = {unbondingDelay: 60n, jackpotSeed: 0n} as const

export type DeployedContracts = {
  registry: Address
  /** ProtocolConfig: stakes, windows, shares and limits, owned by the deployer. */
  config: Address
  market: Address
  /** SolverBook: solvers' offers and the posted price; the market's hooks keep its demand. */
  book: Address
  /** TaskMarketDisputes: the code of the market's challenge and reveal actions (run by the market, DELEGATECALL). */
  disputes: Address
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
 * Deploys RoleRegistry, ProtocolConfig, SolverBook, TaskMarketDisputes, TaskMarket, ThresholdRegistry and
 * PinpointGame from the wallet's account, in that order (nonces 0-6 of a fresh deployer, so their addresses never
 * depend on the options), then wires them: `registry.setMarket(market)`, `book.setMarket(market)`,
 * `market.setGame(game)`, `config.setParams` / `setMarketParams` / `setWorkTable` when any of their fields is
 * overridden, and `market.fundJackpot` with the jackpot seed.
 * Transactions are sent one after the other, each after the previous receipt, so it works the same on an
 * automining anvil, an interval-mining one, and a real chain.
 */
export async function deployContracts({publicClient, walletClient, params = {}}: DeployContractsParameters): Promise<DeployedContracts> {
  const overrides = definedFields(params.config)
  const marketOverrides = definedFields(params.market)
  const workTableOverrides = definedFields(params.workTable)
  const receipts: TransactionReceipt[] = []
  const send = async (what: string, hash: Hash) => {
    const receipt = await confirm(publicClient, what, hash)
    receipts.push(receipt)
    return receipt
  }
  const unbondingDelay = params.unbondingDelay ?? defaultDeployParams.unbondingDelay
  const treasury = params.treasury ?? walletClient.account.address
  // A verifier is listed for committee draws once it stakes what one verification locks (docs/security.md, finding 4).
  const minimumVerifierStake = overrides.verifierStake ?? defaultProtocolParams.verifierStake

  const registry = deployedAddress(
    await send(
      'RoleRegistry deployment',
      await walletClient.deployContract({abi: roleRegistryAbi, bytecode: roleRegistryBytecode, args: [unbondingDelay, treasury, minimumVerifierStake]}),
    ),
    'RoleRegistry',
  )
  const config = deployedAddress(
    await send('ProtocolConfig deployment', await walletClient.deployContract({abi: protocolConfigAbi, bytecode: protocolConfigBytecode, args: []})),
    'ProtocolConfig',
  )
  const book = deployedAddress(
    await send('SolverBook deployment', await walletClient.deployContract({abi: solverBookAbi, bytecode: solverBookBytecode, args: [registry, config]})),
    'SolverBook',
  )
  const disputes = deployedAddress(
    await send(
      'TaskMarketDisputes deployment',
      await walletClient.deployContract({abi: taskMarketDisputesAbi, bytecode: taskMarketDisputesBytecode, args: [registry, treasury, config, book]}),
    ),
    'TaskMarketDisputes',
  )
  const market = deployedAddress(
    await send(
      'TaskMarket deployment',
      await walletClient.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args: [registry, treasury, config, book, disputes]}),
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
  await send('SolverBook.setMarket', await walletClient.writeContract({address: book, abi: solverBookAbi, functionName: 'setMarket', args: [market]}))
  await send('TaskMarket.setGame', await walletClient.writeContract({address: market, abi: taskMarketAbi, functionName: 'setGame', args: [game]}))

  // The fields left out keep the contract's defaults (read back, so there is one source of them).
  const [currentParams, currentMarket, currentWorkTable] = await Promise.all([
    publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'params'}),
    publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'marketParams'}),
    publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'workTable'}),
  ])
  const resolved: ResolvedDeployParams = {
    unbondingDelay,
    treasury,
    config: {...currentParams, ...overrides},
    market: {...currentMarket, ...marketOverrides},
    workTable: {...currentWorkTable, ...workTableOverrides},
    jackpotSeed: params.jackpotSeed ?? defaultDeployParams.jackpotSeed,
  }
  const setConfig = async (functionName: 'setParams' | 'setMarketParams' | 'setWorkTable', args: readonly [unknown]) => {
    const call = {address: config, abi: protocolConfigAbi, functionName, args} as never
    // Simulated first so that a rejected override names its field (InvalidParameter(name)).
    try {
      await publicClient.simulateContract({...(call as object), account: walletClient.account} as never)
    } catch (error) {
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined
      const name = reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName === 'InvalidParameter' ? reverted.data.args?.[0] : undefined
      const docs = functionName === 'setParams' ? 'docs/disputes.md, "ProtocolConfig"' : 'docs/market.md, "Parameters"'
      throw new DeployError(
        name === undefined ? `ProtocolConfig.${functionName}: the overrides were rejected` : `ProtocolConfig parameter ${String(name)}: out of range (${docs})`,
        {cause: error},
      )
    }
    await send(`ProtocolConfig.${functionName}`, await walletClient.writeContract(call))
  }
  if (Object.keys(overrides).length > 0) await setConfig('setParams', [resolved.config])
  if (Object.keys(marketOverrides).length > 0) await setConfig('setMarketParams', [resolved.market])
  if (Object.keys(workTableOverrides).length > 0) await setConfig('setWorkTable', [resolved.workTable])
  if (resolved.jackpotSeed > 0n) {
    await send(
      'TaskMarket.fundJackpot',
      await walletClient.writeContract({address: market, abi: taskMarketAbi, functionName: 'fundJackpot', value: resolved.jackpotSeed}),
    )
  }

  const [wiredMarket, wiredBookMarket, wiredGame] = await Promise.all([
    publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'market'}),
    publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'market'}),
    publicClient.readContract({address: market, abi: taskMarketAbi, functionName: 'game'}),
  ])
  if (wiredMarket.toLowerCase() !== market.toLowerCase()) throw new DeployError(`RoleRegistry ${registry}: market() is ${wiredMarket}, expected ${market}`)
  if (wiredBookMarket.toLowerCase() !== market.toLowerCase()) throw new DeployError(`SolverBook ${book}: market() is ${wiredBookMarket}, expected ${market}`)
  if (wiredGame.toLowerCase() !== game.toLowerCase()) throw new DeployError(`TaskMarket ${market}: game() is ${wiredGame}, expected ${game}`)

  return {
    registry,
    config,
    market,
    book,
    disputes,
    thresholds,
    game,
    deployBlock: receipts[0]!.blockNumber,
    gasUsed: receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n),
    params: resolved,
  }
}

/** The fields of an overrides object that are set (undefined means "keep the default"). */
function definedFields<T extends object>(overrides: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(overrides ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>
}

async function confirm(publicClient: GensynPublicClient, what: string, hash: Hash): Promise<TransactionReceipt> {
  const receipt = await waitForReceipt(publicClient, {hash, label: what})
  if (receipt.status !== 'success') throw new DeployError(`${what} reverted (transaction ${hash})`)
  return receipt
}

function deployedAddress(receipt: TransactionReceipt, name: string): Address {
  if (!receipt.contractAddress) {
    throw new DeployError(`${name} deployment: no contract address in receipt ${receipt.transactionHash}`)
  }
  return receipt.contractAddress
}
