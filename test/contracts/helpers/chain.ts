import assert from 'node:assert/strict'

import {
  type Abi,
  type Address,
  BaseError as ViemBaseError,
  ContractFunctionRevertedError,
  type ContractFunctionArgs,
  type ContractFunctionName,
  createTestClient,
  decodeErrorResult,
  getAddress,
  type Hash,
  type Hex,
  http,
  isAddress,
  parseEther,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem'
import {mnemonicToAccount} from 'viem/accounts'

import {type Anvil, createAnvil} from '../../../src/chain/anvil.js'
import {createClients, type GensynPublicClient, type GensynWalletClient} from '../../../src/chain/clients.js'
import {type DeployParams, deployContracts, type ResolvedDeployParams} from '../../../src/chain/deployContracts.js'
import {waitForReceipt} from '../../../src/chain/waitForReceipt.js'
import {eventsIn} from '../../../src/chain/eventsIn.js'
import {getTask as readProtocolTask} from '../../../src/protocol/getTask.js'
import {readMarket as readMarketView} from '../../../src/protocol/readMarket.js'
import {chainStates, withTaskState} from '../../../src/protocol/taskState.js'
import {
  pinpointGameAbi,
  protocolConfigAbi,
  roleRegistryAbi,
  roleRegistryBytecode,
  solverBookAbi,
  solverBookBytecode,
  taskMarketAbi,
  taskMarketBytecode,
  taskMarketDisputesAbi,
  taskMarketDisputesBytecode,
  thresholdRegistryAbi,
} from '../../../src/chain/generated/index.js'

/** anvil's default dev mnemonic: its accounts are funded at genesis. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

export const ACTOR_NAMES = ['deployer', 'treasury', 'submitter', 'solver', 'verifier', 'other', 'verifier2', 'marketEoa'] as const
export type ActorName = (typeof ACTOR_NAMES)[number]

/**
 * Accounts `useChain({disputeActors: true})` adds (HD indexes from 30, funded with setBalance): three
 * whistleblowers (WHISTLEBLOWER role) and a second solver, each registered with `stake`.
 */
export const DISPUTE_ACTOR_NAMES = ['wb1', 'wb2', 'wb3', 'solver2'] as const
export type DisputeActorName = (typeof DISPUTE_ACTOR_NAMES)[number]
const DISPUTE_ACTOR_FIRST_INDEX = 30

export type Actor = {name: string; address: Address; wallet: GensynWalletClient}
/**
 * A registry, its market, its ThresholdRegistry, ProtocolConfig, PinpointGame, SolverBook and TaskMarketDisputes;
 * `market` is undefined for a bare registry whose market is an EOA, the others when none was deployed with it.
 */
export type System = {
  registry: Address
  market?: Address | undefined
  thresholds?: Address | undefined
  config?: Address | undefined
  game?: Address | undefined
  book?: Address | undefined
  disputes?: Address | undefined
}

/**
 * The market parameters of every test chain unless a test overrides them: the price frozen at 1e13 wei per work
 * unit (floor = ceiling = initial, so the rewards of a test are exact whatever blocks it mines; the SolverBook
 * tests move it), and short timeouts: claim 100 s, training 100 + ceil(workUnits / 2500) s (200 s for the
 * default task's 250,000 work units), verification 300 s.
 */
export const TEST_PRICE = 10_000_000_000_000n
export const testMarketParams = {
  initialPrice: TEST_PRICE,
  priceFloor: TEST_PRICE,
  priceCeiling: TEST_PRICE,
  claimTimeoutSeconds: 100n,
  trainingBaseSeconds: 100n,
  minWorkUnitsPerSecond: 2500n,
  verificationTimeoutSeconds: 300n,
} as const
/**
 * The offer `useChain` lists for its solvers at the default stake (5 ether): asks the floor, 5 tasks at once, as
 * many as 5 stakes of the default 1 ether solverStake back (`backedCapacity`).
 */
export const testOffer = {ask: TEST_PRICE, capacity: 5} as const

/** The tasks at once `stake` backs at the default 1 ether solverStake: at least 1, at most 100. */
export const backedCapacity = (stake: bigint): number => Math.min(100, Math.max(1, Number(stake / parseEther('1'))))

export type Chain = {
  anvil: Anvil
  /**
   * Sends JSON-RPC in batches: each write's conservation checks read every tracked balance twice and every stake once,
   * in parallel, and a batch sends each such round as one HTTP request. That took the contract tests (without the
   * property test) from 71 s to 55-62 s, and from 131 s to 89-108 s of CPU (two runs before, three after).
   */
  publicClient: GensynPublicClient
  /**
   * The same chain without batches, for a test that makes one call at a time: a batch waits a tick before it goes
   * out, which made the property test's sequences take 34.4 s instead of 23 s.
   */
  serialClient: GensynPublicClient
  test: ReturnType<typeof makeTestClient>
  actors: Record<ActorName, Actor>
  /** The system deployed in `before` by deployContracts (registry, config, book, market, thresholds, game, wired). */
  system: {registry: Address; market: Address; thresholds: Address; config: Address; game: Address; book: Address; disputes: Address}
  /** The dispute actors (only with `disputeActors: true`). */
  extra: Record<DisputeActorName, Actor>
  params: ResolvedDeployParams
  /** Every account whose balance and stake the conservation checks sum over. */
  tracked: Set<Address>
  /** Every deployed system whose invariants are checked after each transaction. */
  systems: System[]
  /** Gas used per `contract.function`, recorded by every successful write. */
  gas: Map<string, bigint[]>
  /** Every account that ever listed an offer (from OfferSet events): the book checks their `active` counts. */
  offerers: Set<Address>
  /**
   * Every market's credits as its Credited and CreditWithdrawn events told them, by market then account: the
   * flows count a credit as its recipient's money, and checkInvariants holds each market's sum to `totalCredit`.
   */
  credits: Map<Address, Map<Address, bigint>>
}

export type UseChainOptions = {
  /** Deployment parameters; `market` overrides go over `testMarketParams`. */
  params?: DeployParams
  /**
   * Register solver (SOLVER, with `testOffer`'s ask listed for the `backedCapacity` of its stake) and verifier/verifier2 (VERIFIER) with this much stake each.
   * Default 5 ether.
   */
  stake?: bigint
  /** Also create and register the DISPUTE_ACTOR_NAMES accounts (`ctx.extra`). */
  disputeActors?: boolean
}

/**
 * How long a contract test waits for a receipt before it fails naming the transaction and what anvil knows of it.
 * anvil mines each transaction within milliseconds, so a wait this long is a hang, not a slow chain.
 */
export const RECEIPT_TIMEOUT_MS = 20_000

/** The receipt of `hash`, polled every 10 ms (src/chain/waitForReceipt.ts says why not viem's wait). */
export function receiptOf(client: GensynPublicClient, hash: Hash, label?: string): Promise<TransactionReceipt> {
  return waitForReceipt(client, {hash, pollingInterval: 10, timeout: RECEIPT_TIMEOUT_MS, label})
}

function makeTestClient(rpcUrl: string) {
  return createTestClient({mode: 'anvil', transport: http(rpcUrl)})
}

/**
 * One anvil for the calling test file: started and deployed in `before`, stopped in `after`, and the chain is
 * snapshotted before and reverted after every test so each test starts from the same state.
 */
export function useChain(options: UseChainOptions = {}): Chain {
  const ctx = {} as Chain
  let snapshot: Hex | undefined

  before(async function () {
    this.timeout(30_000)
    ctx.anvil = createAnvil({accounts: ACTOR_NAMES.length, balance: 1000})
    await ctx.anvil.start()
    const rpcUrl = ctx.anvil.rpcUrl
    const chainId = ctx.anvil.chainId
    ctx.test = makeTestClient(rpcUrl)
    ctx.gas = new Map()
    ctx.offerers = new Set()
    ctx.credits = new Map()
    ctx.tracked = new Set()
    ctx.systems = []
    const actors = {} as Record<ActorName, Actor>
    for (const [index, name] of ACTOR_NAMES.entries()) {
      const hd = mnemonicToAccount(DEV_MNEMONIC, {addressIndex: index})
      const privateKey = hd.getHdKey().privateKey
      assert.ok(privateKey)
      const clients = await createClients({rpcUrl, chainId, privateKey: `0x${Buffer.from(privateKey).toString('hex')}`, pollingInterval: 20, batch: false})
      actors[name] = {name, address: clients.account.address, wallet: clients.walletClient}
      ctx.serialClient ??= clients.publicClient
      ctx.publicClient ??= (await createClients({rpcUrl, chainId, pollingInterval: 20})).publicClient
      ctx.tracked.add(clients.account.address)
    }
    ctx.actors = actors

    const block = await ctx.publicClient.getBlock()
    assert.ok(!ctx.tracked.has(getAddress(block.miner)), 'the coinbase must not be a tracked account (it earns tips)')

    const deployed = await deployContracts({
      publicClient: ctx.publicClient,
      walletClient: actors.deployer.wallet,
      params: {treasury: actors.treasury.address, ...options.params, market: {...testMarketParams, ...options.params?.market}},
    })
    ctx.system = {
      registry: deployed.registry,
      market: deployed.market,
      thresholds: deployed.thresholds,
      config: deployed.config,
      game: deployed.game,
      book: deployed.book,
      disputes: deployed.disputes,
    }
    ctx.params = deployed.params
    ctx.systems.push(ctx.system)
    await checkInvariants(ctx)

    const stake = options.stake ?? parseEther('5')
    await registryWrite(ctx, actors.solver, 'register', [1], {value: stake})
    await bookWrite(ctx, actors.solver, 'setOffer', [testOffer.ask, backedCapacity(stake)])
    await registryWrite(ctx, actors.verifier, 'register', [2], {value: stake})
    await registryWrite(ctx, actors.verifier2, 'register', [2], {value: stake})

    ctx.extra = {} as Record<DisputeActorName, Actor>
    if (options.disputeActors) {
      for (const [offset, name] of DISPUTE_ACTOR_NAMES.entries()) {
        const hd = mnemonicToAccount(DEV_MNEMONIC, {addressIndex: DISPUTE_ACTOR_FIRST_INDEX + offset})
        const privateKey = hd.getHdKey().privateKey
        assert.ok(privateKey)
        const clients = await createClients({rpcUrl, chainId, privateKey: `0x${Buffer.from(privateKey).toString('hex')}`, pollingInterval: 20, batch: false})
        await ctx.test.setBalance({address: clients.account.address, value: parseEther('1000')})
        ctx.extra[name] = {name, address: clients.account.address, wallet: clients.walletClient}
        ctx.tracked.add(clients.account.address)
        await registryWrite(ctx, ctx.extra[name], 'register', [name === 'solver2' ? 1 : 4], {value: stake})
        if (name === 'solver2') await bookWrite(ctx, ctx.extra[name], 'setOffer', [testOffer.ask, backedCapacity(stake)])
      }
    }
  })

  let baselineTracked: Address[] = []
  let baselineSystems: System[] = []
  let baselineCredits: Chain['credits'] = new Map()
  beforeEach(async () => {
    snapshot = await (await ctx.test.snapshot())
    baselineTracked = [...ctx.tracked]
    baselineSystems = [...ctx.systems]
    baselineCredits = copyCredits(ctx.credits)
  })

  afterEach(async () => {
    if (snapshot) await ctx.test.revert({id: snapshot})
    snapshot = undefined
    // Contracts a test deployed are gone with the revert: stop tracking them.
    ctx.tracked = new Set(baselineTracked)
    ctx.systems = baselineSystems
    ctx.credits = copyCredits(baselineCredits)
  })

  after(async () => {
    if (process.env.GAS_REPORT && ctx.gas?.size) printGas(ctx.gas)
    await ctx.anvil?.stop()
  })

  return ctx
}

/**
 * Deploys a bare RoleRegistry (owner: deployer) whose market is `market` (an EOA in tests, so that the
 * market-only functions can be called directly), and checks its invariants from then on.
 */
export async function deployBareRegistry(ctx: Chain, options: {unbondingDelay?: bigint; market?: Actor; minimumVerifierStake?: bigint} = {}): Promise<Address> {
  const {deployer, treasury} = ctx.actors
  const hash = await deployer.wallet.deployContract({
    abi: roleRegistryAbi,
    bytecode: roleRegistryBytecode,
    args: [options.unbondingDelay ?? 60n, treasury.address, options.minimumVerifierStake ?? parseEther('0.5')],
  })
  const receipt = await receiptOf(ctx.publicClient, hash)
  assert.ok(receipt.contractAddress)
  const registry = getAddress(receipt.contractAddress)
  ctx.systems.push({registry})
  if (options.market) await registryWrite(ctx, deployer, 'setMarket', [options.market.address], {address: registry})
  return registry
}

/**
 * Deploys a TaskMarket (owner: deployer) with its own SolverBook (wired to it) and TaskMarketDisputes on
 * `registry` and the shared config, without a game and without wiring the registry to it (`wireRegistry` does),
 * and checks its invariants from then on.
 */
export async function deployMarket(ctx: Chain, registry: Address, options: {wireRegistry?: boolean} = {}): Promise<{market: Address; book: Address; disputes: Address}> {
  const {deployer, treasury} = ctx.actors
  const deployed = async (hash: Hex) => getAddress((await receiptOf(ctx.publicClient, hash)).contractAddress!)
  const config = ctx.system.config
  const book = await deployed(await deployer.wallet.deployContract({abi: solverBookAbi, bytecode: solverBookBytecode, args: [registry, config]}))
  const disputes = await deployed(
    await deployer.wallet.deployContract({abi: taskMarketDisputesAbi, bytecode: taskMarketDisputesBytecode, args: [registry, treasury.address, config, book]}),
  )
  const market = await deployed(
    await deployer.wallet.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args: [registry, treasury.address, config, book, disputes]}),
  )
  ctx.systems.push({registry, market, book, disputes})
  await write(ctx, deployer, book, solverBookAbi, 'setMarket', [market])
  if (options.wireRegistry) await registryWrite(ctx, deployer, 'setMarket', [market], {address: registry})
  return {market, book, disputes}
}

// ------------------------------------------------------------------ writes with conservation checks

type WriteFunction<abi extends Abi> = ContractFunctionName<abi, 'nonpayable' | 'payable'>
type WriteArgs<abi extends Abi, fn extends WriteFunction<abi>> = ContractFunctionArgs<abi, 'nonpayable' | 'payable', fn>
/**
 * A market call's arguments as the tests name them: the task's id without its state, which `write` reads from the
 * chain and puts in place (src/protocol/taskState.ts); `submitTask` without its parent's state.
 */
export type MarketArgs<fn extends WriteFunction<typeof taskMarketAbi>> = fn extends 'submitTask'
  ? WriteArgs<typeof taskMarketAbi, fn> extends readonly [...infer Head, unknown]
    ? readonly [...Head]
    : never
  : WriteArgs<typeof taskMarketAbi, fn> extends readonly [infer Id, readonly Hex[], ...infer Rest]
    ? readonly [Id, ...Rest]
    : WriteArgs<typeof taskMarketAbi, fn>
type WriteOptions = {value?: bigint; gas?: bigint; address?: Address}

export type Event = {eventName: string; address: Address; args: Record<string, unknown>}

export type TxResult = {
  receipt: TransactionReceipt
  gasPaid: bigint
  /**
   * Net ether each tracked account (and contract) received, with the sender's gas added back: the value
   * flows of this transaction alone. Their sum is zero (checked). A market credit counts as its recipient's
   * money when credited (and leaves the market's then); a withdrawal nets to zero.
   */
  flows: Map<Address, bigint>
  /** The events of every contract but the SolverBook's and the market's Credited (checked through `flows`). */
  events: Event[]
  /** Every event, the SolverBook's included (the book's tests check these). */
  allEvents: Event[]
}

const allErrorsAbi = [
  ...taskMarketAbi,
  ...[...roleRegistryAbi, ...protocolConfigAbi, ...pinpointGameAbi, ...solverBookAbi, ...taskMarketDisputesAbi].filter(
    (item) => item.type === 'error' && !taskMarketAbi.some((known) => known.type === 'error' && known.name === item.name),
  ),
] as const
/** Every event the deployed contracts emit, for parsing receipts (the SolverBook's MarketSet is the registry's shape). */
const allEventsAbi = [
  ...roleRegistryAbi,
  ...taskMarketAbi,
  ...thresholdRegistryAbi,
  ...protocolConfigAbi,
  ...pinpointGameAbi,
  ...solverBookAbi.filter((item) => item.type === 'event' && item.name !== 'MarketSet'),
] as const
/** The events only a SolverBook emits: TxResult.events leaves them out (allEvents has them). */
export const BOOK_EVENTS: ReadonlySet<string> = new Set(solverBookAbi.filter((item) => item.type === 'event' && item.name !== 'MarketSet').map((item) => item.name))
const contractNames = new Map<Abi, string>([
  [roleRegistryAbi, 'RoleRegistry'],
  [taskMarketAbi, 'TaskMarket'],
  [thresholdRegistryAbi, 'ThresholdRegistry'],
  [protocolConfigAbi, 'ProtocolConfig'],
  [pinpointGameAbi, 'PinpointGame'],
  [solverBookAbi, 'SolverBook'],
])

export function registryWrite<fn extends WriteFunction<typeof roleRegistryAbi>>(
  ctx: Chain,
  actor: Actor,
  functionName: fn,
  args: WriteArgs<typeof roleRegistryAbi, fn>,
  options: WriteOptions = {},
): Promise<TxResult> {
  return write(ctx, actor, options.address ?? ctx.system.registry, roleRegistryAbi, functionName, args as readonly unknown[], options)
}

export function thresholdsWrite<fn extends WriteFunction<typeof thresholdRegistryAbi>>(
  ctx: Chain,
  actor: Actor,
  functionName: fn,
  args: WriteArgs<typeof thresholdRegistryAbi, fn>,
  options: WriteOptions = {},
): Promise<TxResult> {
  return write(ctx, actor, options.address ?? ctx.system.thresholds, thresholdRegistryAbi, functionName, args as readonly unknown[], options)
}

export function configWrite<fn extends WriteFunction<typeof protocolConfigAbi>>(
  ctx: Chain,
  actor: Actor,
  functionName: fn,
  args: WriteArgs<typeof protocolConfigAbi, fn>,
  options: WriteOptions = {},
): Promise<TxResult> {
  return write(ctx, actor, options.address ?? ctx.system.config, protocolConfigAbi, functionName, args as readonly unknown[], options)
}

export function gameWrite<fn extends WriteFunction<typeof pinpointGameAbi>>(
  ctx: Chain,
  actor: Actor,
  functionName: fn,
  args: WriteArgs<typeof pinpointGameAbi, fn>,
  options: WriteOptions = {},
): Promise<TxResult> {
  return write(ctx, actor, options.address ?? ctx.system.game, pinpointGameAbi, functionName, args as readonly unknown[], options)
}

export function bookWrite<fn extends WriteFunction<typeof solverBookAbi>>(
  ctx: Chain,
  actor: Actor,
  functionName: fn,
  args: WriteArgs<typeof solverBookAbi, fn>,
  options: WriteOptions = {},
): Promise<TxResult> {
  return write(ctx, actor, options.address ?? ctx.system.book, solverBookAbi, functionName, args as readonly unknown[], options)
}

export function marketWrite<fn extends WriteFunction<typeof taskMarketAbi>>(
  ctx: Chain,
  actor: Actor,
  functionName: fn,
  args: MarketArgs<fn>,
  options: WriteOptions = {},
): Promise<TxResult> {
  return write(ctx, actor, options.address ?? ctx.system.market, taskMarketAbi, functionName, args as readonly unknown[], options)
}

/**
 * Sends a contract call from `actor`, waits for its receipt, and checks that no wei was created or lost:
 * the tracked balances plus every contract's balance plus the gas paid are unchanged, the registry holds
 * exactly `totalStaked + totalBurned` (and `totalStaked` equals the sum of every tracked account's stake
 * buckets), and the market holds exactly `totalEscrow + jackpot`. A call that reverts in estimation throws (see
 * expectRevert) and changes nothing.
 */
export async function write(
  ctx: Chain,
  actor: Actor,
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[],
  options: WriteOptions = {},
): Promise<TxResult> {
  const contracts = ctx.systems.flatMap(systemContracts)
  const accounts = [...new Set([...ctx.tracked, ...contracts].map((a) => getAddress(a)))]
  const before = await balances(ctx, accounts)
  // The disputes contract runs on the market's storage: a direct call to it takes the market's task states too.
  const market = abi === taskMarketAbi ? address : abi === taskMarketDisputesAbi ? ctx.system.market : undefined
  const withState = market ? await withTaskState(chainStates({client: ctx.publicClient, market}), functionName, args) : args
  const call = {address, abi: [...abi, ...allErrorsAbi], functionName, args: withState, value: options.value}
  // Same padding as src/protocol/sendContractTransaction.ts: anvil's estimate can leave the market's inner
  // call to the registry short of gas, and the mined transaction then reverts out of gas.
  const gas = options.gas ?? ((await ctx.publicClient.estimateContractGas({...call, account: actor.wallet.account} as never)) * 5n) / 4n
  const hash = await actor.wallet.writeContract({...call, gas} as never)
  const receipt = await receiptOf(ctx.publicClient, hash, `${contractNames.get(abi) ?? 'contract'}.${functionName}`)
  const after = await balances(ctx, accounts)
  const gasPaid = receipt.gasUsed * receipt.effectiveGasPrice
  const allEvents = parseEventLogs({abi: eventsIn(allEventsAbi, receipt.logs), logs: receipt.logs}).map((log) => ({
    eventName: log.eventName,
    address: getAddress(log.address),
    args: log.args as unknown as Record<string, unknown>,
  }))
  const credited = applyCredits(ctx, allEvents)

  const flows = new Map<Address, bigint>()
  let net = 0n
  for (const account of accounts) {
    const flow = after.get(account)! - before.get(account)! + (account === actor.address ? gasPaid : 0n) + (credited.get(account) ?? 0n)
    flows.set(account, flow)
    net += flow
  }
  assert.equal(net, 0n, `${functionName}: ${net} wei appeared (or, if negative, vanished) across tracked accounts`)
  await checkInvariants(ctx)

  if (receipt.status === 'success') {
    const key = `${contractNames.get(abi) ?? 'other'}.${functionName}`
    ctx.gas.set(key, [...(ctx.gas.get(key) ?? []), receipt.gasUsed])
  }
  for (const event of allEvents) if (event.eventName === 'OfferSet') ctx.offerers.add(getAddress(event.args.solver as Address))
  // Credits are asserted through `flows` (a credit is its recipient's money), so `events` leaves them out with
  // the book's, and the task's new state (TaskState: the plumbing of every call that changes a task, which the
  // next call reads); `allEvents` has them.
  const events = allEvents.filter((event) => !BOOK_EVENTS.has(event.eventName) && event.eventName !== 'Credited' && event.eventName !== 'TaskState')
  return {receipt, gasPaid, flows, events, allEvents}
}

function systemContracts(system: System): Address[] {
  return [system.registry, system.market, system.thresholds, system.config, system.game, system.book, system.disputes].filter(
    (a): a is Address => a !== undefined,
  )
}

/**
 * Snapshots the chain and this helper's books of it (the credits ledger), for a test that rolls back within
 * itself; the returned function reverts both.
 */
export async function snapshotChain(ctx: Chain): Promise<() => Promise<void>> {
  const id = await ctx.test.snapshot()
  const credits = copyCredits(ctx.credits)
  return async () => {
    await ctx.test.revert({id})
    ctx.credits = copyCredits(credits)
  }
}

const copyCredits = (credits: Chain['credits']): Chain['credits'] => new Map([...credits].map(([market, ledger]) => [market, new Map(ledger)]))

async function balances(ctx: Chain, accounts: Address[]): Promise<Map<Address, bigint>> {
  const values = await Promise.all(accounts.map((address) => ctx.publicClient.getBalance({address})))
  return new Map(accounts.map((address, index) => [address, values[index]!]))
}

/**
 * Books this transaction's Credited and CreditWithdrawn events into `ctx.credits` and returns how much money each
 * account gained by credit (a withdrawal moves credit to a wallet: -amount here, +amount in the wallet) and each
 * market lost by it: payments are pulled, so a credit is its recipient's money from the moment it is credited.
 */
function applyCredits(ctx: Chain, events: Event[]): Map<Address, bigint> {
  const delta = new Map<Address, bigint>()
  const add = (account: Address, amount: bigint) => delta.set(account, (delta.get(account) ?? 0n) + amount)
  for (const event of events) {
    if (event.eventName !== 'Credited' && event.eventName !== 'CreditWithdrawn') continue
    const account = getAddress(event.args.account as Address)
    const amount = (event.args.amount as bigint) * (event.eventName === 'Credited' ? 1n : -1n)
    const ledger = ctx.credits.get(event.address) ?? new Map<Address, bigint>()
    ledger.set(account, (ledger.get(account) ?? 0n) + amount)
    ctx.credits.set(event.address, ledger)
    add(account, amount)
    add(event.address, -amount)
  }
  return delta
}

/**
 * Registry balance == totalStaked + totalBurned, totalStaked == the sum of tracked stakes; market balance ==
 * totalEscrow + jackpot + totalCredit; a ThresholdRegistry, ProtocolConfig, PinpointGame, SolverBook and TaskMarketDisputes hold
 * no ether; the book's demand is the number of the market's live tasks (Submitted to Verified) and each tracked
 * solver's `active` the number of its claims (Claimed to Verified).
 */
export async function checkInvariants(ctx: Chain): Promise<void> {
  for (const {registry, market, thresholds, config, game, book, disputes} of ctx.systems) {
    const registryRead = (functionName: 'totalStaked' | 'totalBurned') =>
      ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName})
    const marketRead = (functionName: 'totalEscrow' | 'jackpot' | 'totalCredit') =>
      market ? ctx.publicClient.readContract({address: market, abi: taskMarketAbi, functionName}) : Promise.resolve(0n)
    const [idle, registryBalance, totalStaked, totalBurned, marketBalance, totalEscrow, jackpot, totalCredit, ...stakes] = await Promise.all([
      Promise.all([thresholds, config, game, book, disputes].map((address) => (address ? ctx.publicClient.getBalance({address}) : 0n))),
      ctx.publicClient.getBalance({address: registry}),
      registryRead('totalStaked'),
      registryRead('totalBurned'),
      market ? ctx.publicClient.getBalance({address: market}) : 0n,
      marketRead('totalEscrow'),
      marketRead('jackpot'),
      marketRead('totalCredit'),
      ...[...ctx.tracked].map((account) =>
        ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'stakeOf', args: [account]}),
      ),
    ])
    assert.equal(totalStaked + totalBurned, registryBalance, `registry ${registry}: totalStaked + totalBurned != balance`)
    assert.equal(totalEscrow + jackpot + totalCredit, marketBalance, `market ${market ?? '(none)'}: totalEscrow + jackpot + totalCredit != balance`)
    const booked = market ? [...(ctx.credits.get(getAddress(market))?.values() ?? [])].reduce((sum, credit) => sum + credit, 0n) : 0n
    assert.equal(booked, totalCredit, `market ${market ?? '(none)'}: its Credited - CreditWithdrawn events sum to ${booked}, totalCredit is ${totalCredit}`)
    assert.deepEqual(idle, [0n, 0n, 0n, 0n, 0n], `thresholds/config/game/book/disputes of ${registry} hold ether`)
    const summed = (stakes as (readonly [bigint, bigint, bigint, bigint])[]).reduce((sum, [free, locked, unbonding]) => sum + free + locked + unbonding, 0n)
    assert.equal(summed, totalStaked, `registry ${registry}: tracked stakes sum to ${summed}, totalStaked is ${totalStaked}`)
    if (market && book) await checkBook(ctx, market, book)
  }
}

const LIVE = new Set([1, 2, 3, 4, 5])
const HELD = new Set([2, 3, 4, 5])

/**
 * The book counts what the market holds: demand == the live tasks' demand weights, and the `active` count of every
 * account that holds a task or ever listed an offer == its claims.
 */
async function checkBook(ctx: Chain, market: Address, book: Address): Promise<void> {
  const [count, demand] = await Promise.all([
    ctx.publicClient.readContract({address: market, abi: taskMarketAbi, functionName: 'taskCount'}),
    ctx.publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'demand'}),
  ])
  // Every task's state from one scan of TaskState (the last event of each id), each decoded by the market.
  const events = await ctx.publicClient.getContractEvents({address: market, abi: taskMarketAbi, eventName: 'TaskState', fromBlock: 0n, strict: true})
  const states = new Map(events.map((event) => [event.args.id, [...event.args.state]] as const))
  const tasks = await Promise.all(
    Array.from({length: Number(count)}, (_, i) => ctx.publicClient.readContract({address: market, abi: taskMarketAbi, functionName: 'getTask', args: [BigInt(i + 1), states.get(BigInt(i + 1)) ?? []]})),
  )
  const weights = tasks.filter((t) => LIVE.has(t.status)).reduce((sum, t) => sum + BigInt(t.demandWeight), 0n)
  assert.equal(demand, weights, `book ${book}: demand != the live tasks' weights of ${market}`)
  const held = new Map<Address, number>()
  for (const t of tasks) if (HELD.has(t.status)) held.set(getAddress(t.solver), (held.get(getAddress(t.solver)) ?? 0) + 1)
  const accounts = [...new Set([...ctx.offerers, ...held.keys()])]
  const offers = await Promise.all(accounts.map((account) => ctx.publicClient.readContract({address: book, abi: solverBookAbi, functionName: 'offerOf', args: [account]})))
  for (const [i, account] of accounts.entries()) {
    const holds = held.get(getAddress(account)) ?? 0
    assert.equal(offers[i]!.active, holds, `book ${book}: ${account} is active in ${offers[i]!.active} tasks, holds ${holds}`)
  }
}

/** The net ether `account` received in this transaction (gas excluded). */
export function flowOf(result: TxResult, account: Address): bigint {
  const flow = result.flows.get(getAddress(account))
  assert.ok(flow !== undefined, `${account} is not tracked`)
  return flow
}

/** Sums the value flows of several transactions per account (gas excluded). */
export function netFlows(results: TxResult[]): Map<Address, bigint> {
  const total = new Map<Address, bigint>()
  for (const result of results) {
    for (const [account, flow] of result.flows) total.set(account, (total.get(account) ?? 0n) + flow)
  }
  return total
}

/**
 * Asserts the net value flows of `results` (gas excluded): exactly the listed accounts moved, by exactly these
 * amounts; every other tracked account and contract netted to zero.
 */
export function expectNetFlows(results: TxResult[], expected: [Address, bigint][]): void {
  const total = netFlows(results)
  const wanted = Object.fromEntries(expected.filter(([, amount]) => amount !== 0n).map(([account, amount]) => [getAddress(account), amount]))
  for (const [account] of expected) assert.ok(total.has(getAddress(account)), `${account} is not tracked`)
  const actual = Object.fromEntries([...total].filter(([, amount]) => amount !== 0n))
  assert.deepEqual(actual, wanted)
}

// ------------------------------------------------------------------ reads

export type StakeView = {free: bigint; locked: bigint; unbonding: bigint; releaseAt: bigint}

export async function stakeOf(ctx: Chain, account: Address, registry: Address = ctx.system.registry): Promise<StakeView> {
  const [free, locked, unbonding, releaseAt] = await ctx.publicClient.readContract({
    address: registry,
    abi: roleRegistryAbi,
    functionName: 'stakeOf',
    args: [account],
  })
  return {free, locked, unbonding, releaseAt}
}

/**
 * The market's view of a task. The clock and the schedule are packed narrower than 48 bits (uint32 timeouts, uint40
 * deadline, blocks and steps), which viem decodes as numbers: they are bigints here, like every other block, time
 * and count the tests compute with.
 */
export async function getTask(ctx: Chain, id: bigint, market: Address = ctx.system.market) {
  const task = await readMarket(ctx, 'getTask', [id], market)
  const {claimTimeout, trainingTimeout, verificationTimeout, deadline, claimBlock, commitBlock, totalSteps, checkpointInterval} = task
  return {
    ...task,
    ...mapValues({claimTimeout, trainingTimeout, verificationTimeout, deadline, claimBlock, commitBlock, totalSteps, checkpointInterval}, BigInt),
  }
}

/** One of the market's views, with the task's state read from its TaskState events (src/protocol/readMarket.ts). */
export function readMarket<fn extends ContractFunctionName<typeof taskMarketAbi, 'view' | 'pure'>>(
  ctx: Chain,
  functionName: fn,
  args: readonly unknown[],
  market: Address = ctx.system.market,
) {
  return readMarketView({publicClient: ctx.publicClient, contracts: {registry: ctx.system.registry, market}}, functionName, args)
}

function mapValues<K extends string, V, W>(values: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, map(value as V)])) as Record<K, W>
}

/**
 * The task as gensyn's readers see it (src/protocol/getTask.ts): the view's fields, and the fields the market does not
 * store (spec, manifest and report hashes, randomness, distance) read from its events and blocks. A new client each call: the reader
 * remembers per client what it read, and these tests revert the chain under it.
 */
export async function readTask(ctx: Chain, id: bigint, market: Address = ctx.system.market) {
  const {publicClient} = await createClients({rpcUrl: ctx.anvil.rpcUrl, chainId: ctx.anvil.chainId, batch: false})
  return readProtocolTask({publicClient, contracts: {market, registry: ctx.system.registry}}, {taskId: id})
}

export async function latestTimestamp(ctx: Chain): Promise<bigint> {
  return (await ctx.publicClient.getBlock()).timestamp
}

/** Moves time forward and mines a block, so the next transaction sees at least `seconds` more. */
export async function advanceTime(ctx: Chain, seconds: bigint | number): Promise<void> {
  await ctx.test.increaseTime({seconds: Number(seconds)})
  await ctx.test.mine({blocks: 1})
}

/** Mines one block at exactly `timestamp`: the chain's clock then reads `timestamp`. */
export async function mineAt(ctx: Chain, timestamp: bigint): Promise<void> {
  await ctx.test.setNextBlockTimestamp({timestamp})
  await ctx.test.mine({blocks: 1})
}

// ------------------------------------------------------------------ assertions

/** Awaits a contract write/read and asserts it reverted with the custom error `errorName` (and `args`). */
export async function expectRevert(promise: Promise<unknown>, errorName: string, args?: readonly unknown[]): Promise<void> {
  let error: unknown
  try {
    await promise
  } catch (caught) {
    error = caught
  }
  assert.ok(error, `expected a revert with ${errorName}, but the call succeeded`)
  const reverted = error instanceof ViemBaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined
  assert.ok(reverted instanceof ContractFunctionRevertedError, `expected a contract revert with ${errorName}, got: ${String(error)}`)
  assert.equal(reverted.data?.errorName, errorName, `expected ${errorName}, got ${reverted.data?.errorName ?? reverted.signature ?? reverted.shortMessage}`)
  if (args) assert.deepEqual(normalize(reverted.data?.args ?? []), normalize(args))
}

/** Checksums every address inside `value`, so that comparisons do not depend on address casing. */
export function normalize(value: unknown): unknown {
  if (typeof value === 'string' && isAddress(value, {strict: false})) return getAddress(value)
  if (Array.isArray(value)) return value.map(normalize)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]))
  return value
}

/** Like expectRevert for a deployment (viem raises a raw execution error there): decodes the revert data. */
export async function expectDeployRevert(promise: Promise<unknown>, abi: Abi, errorName: string, args?: readonly unknown[]): Promise<void> {
  let error: unknown
  try {
    await promise
  } catch (caught) {
    error = caught
  }
  assert.ok(error instanceof ViemBaseError, `expected the deployment to revert with ${errorName}`)
  const withData = error.walk((e) => typeof (e as {data?: unknown}).data === 'string' && (e as {data: string}).data.startsWith('0x')) as
    | {data: Hex}
    | null
  assert.ok(withData, `no revert data in: ${error.message}`)
  const decoded = decodeErrorResult({abi, data: withData.data})
  assert.equal(decoded.errorName, errorName)
  if (args) assert.deepEqual(normalize(decoded.args ?? []), normalize(args))
}

/** Asserts that `events` contains exactly these events, in this order (name and args). */
export function expectEvents(events: Event[], expected: {eventName: string; args: Record<string, unknown>; address?: Address}[]): void {
  assert.deepEqual(
    normalize(
      events.map((event, index) => ({
        eventName: event.eventName,
        args: event.args,
        ...(expected[index]?.address ? {address: event.address} : {}),
      })),
    ),
    normalize(expected),
  )
}

function printGas(gas: Map<string, bigint[]>): void {
  const rows = [...gas].sort(([a], [b]) => a.localeCompare(b))
  console.log('\n  gas used (min / max over successful calls)')
  for (const [key, values] of rows) {
    const min = values.reduce((a, b) => (a < b ? a : b))
    const max = values.reduce((a, b) => (a > b ? a : b))
    console.log(`    ${key.padEnd(36)} ${String(min).padStart(8)} ${String(max).padStart(8)}  (${values.length} calls)`)
  }
}
