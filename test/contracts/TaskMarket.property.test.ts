import assert from 'node:assert/strict'

import fc from 'fast-check'
import {type Abi, type Address, encodeFunctionData, getAddress, type Hex, parseEther, parseEventLogs, toHex, zeroAddress, zeroHash} from 'viem'

import {defaultProtocolParams, type MarketParams, type ProtocolParams} from '../../src/chain/deployContracts.js'
import {pinpointGameAbi, protocolConfigAbi, roleRegistryAbi, solverBookAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {createClients, type GensynPublicClient} from '../../src/chain/clients.js'
import {eventsIn} from '../../src/chain/eventsIn.js'
import {merkleProof} from '../../src/ml/checkpoint/merkle.js'
import {readUnstoredFields, type ReadUnstoredFieldsParameters, type ReadUnstoredFieldsReturnType} from '../../src/protocol/readUnstoredFields.js'
import {chainStates, NO_STATE, withTaskState} from '../../src/protocol/taskState.js'
import {receiptOf, snapshotChain, TEST_PRICE, useChain} from './helpers/chain.js'
import {fixture} from './helpers/compileFixtures.js'
import {
  challengeCommitArgs,
  childProof,
  deployProxy,
  escrowOf,
  label,
  makeProof,
  noStart,
  openArgs,
  type Proof,
  type Proxy,
  proxySetAcceptEther,
  sealOf,
  secretHashOf,
  type Start,
  startOf,
  Status,
  testSalt,
} from './helpers/tasks.js'

/** PinpointGame.Phase. */
const Phase = {None: 0, Steps: 1, TraceHeader: 2, Operators: 3, Arbitration: 4, Committee: 5, Resolved: 6} as const
const GAS = 3_000_000n
const ether = parseEther
/**
 * Sequences (fast-check runs) and their length; PROPERTY_RUNS overrides the count. 1000, as issue 18 asks: 250 to
 * 500 s on a 2-core machine, depending on the machine and on what the other mocha worker runs.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000)
const MIN_ACTIONS = 8
const MAX_ACTIONS = 30

const eventsAbi = [...taskMarketAbi, ...roleRegistryAbi, ...pinpointGameAbi, ...solverBookAbi.filter((item) => item.type === 'event' && item.name !== 'MarketSet')].filter(
  (item) => item.type === 'event',
) as Abi

type Action = {kind: Kind; a: number; b: number; c: number}
const kinds = {
  step: 20,
  submit: 2,
  mine: 3,
  time: 2,
  expire: 1,
  fund: 1,
  config: 1,
  market: 1,
  offer: 1,
  junk: 2,
  unbond: 1,
  withdraw: 1,
  sybil: 1,
  grind: 1,
} as const
type Kind = keyof typeof kinds

const actionArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.oneof(...Object.entries(kinds).map(([kind, weight]) => ({arbitrary: fc.constant(kind as Kind), weight}))),
  a: fc.nat({max: 1_000_000}),
  b: fc.nat({max: 1_000_000}),
  c: fc.nat({max: 1_000_000}),
})

/**
 * Thousands of random sequences of role actions (submit, with a parent or not, at a maximum price at, above or
 * below the posted one; claim, commit honest/forced/wrong proofs, full or stopped early, stacked on the parent's
 * or not; claim verification, verdicts, challenges, rejection disputes, reveals, game moves and timeouts,
 * committee votes, settle, expire and training timeouts, config and market-parameter changes, solver offers and
 * withdrawals, jackpot funding, unbonding, junk calls that revert, mined blocks and time; and hostile actors: a
 * submitter that refuses ether, zero-stake registrants, grinders of the draws, whistleblowers that commit and never
 * open) against one anvil, reverted to a snapshot between sequences. After every action:
 * - conservation to the wei: the ether of every account and contract plus the gas paid since the start is
 *   unchanged;
 * - the registry holds totalStaked + totalBurned, totalStaked is the sum of every account's stake; the market holds
 *   totalEscrow + jackpot + totalCredit, totalEscrow is the escrow of the live tasks, totalCredit the sum of every
 *   account's credit;
 * - every account's locked stake is exactly what the market's live tasks locked for it (so no lock is released or
 *   slashed twice, and none is left behind);
 * - the committee pool is exactly the staked verifiers (none listed below the minimum, none staked left out);
 * - the SolverBook's demand is the sum of the live tasks' demand weights, each solver's active claims the tasks it
 *   holds, its capacity the sum of the listed offers, and its price inside the current [floor, ceiling];
 * - every refund is the escrow less what the escrow paid out, to the wei (settlement, expiry, rejection
 *   shortfalls);
 * - no double payout: no task settles twice, no forced error is revealed (and its jackpot paid) twice in one
 *   attempt, no catcher is paid twice in one reveal, no stake is slashed twice in one transaction, and the
 *   jackpot equals what was funded and taxed less what was paid out.
 */
describe('TaskMarket properties (random action sequences on anvil)', function () {
  // 250 to 500 s beside the other worker's devnets, and past 600 s twice on one slower 2-core machine (2026-11-27):
  // a limit that only guards against a hang
  this.timeout(1_200_000)
  const ctx = useChain({stake: ether('50'), disputeActors: true})
  let lens: Address
  /** A hostile submitter: a contract that refuses every payment (its refunds can only stay credited). */
  let refuser: Proxy
  let accounts: Address[]
  /** Zero-stake registrants (findings 4 and 5): they register any roles for free and try what only stake buys. */
  const sybils = ['0x5b', '0x5c', '0x5d'].map((prefix) => getAddress(`${prefix}${'11'.repeat(19)}`))
  let contracts: Address[]

  before(async () => {
    const {abi, bytecode} = fixture('MarketLens')
    const hash = await ctx.actors.deployer.wallet.deployContract({abi, bytecode})
    lens = getAddress((await receiptOf(ctx.publicClient, hash)).contractAddress!)
    refuser = await deployProxy(ctx, ctx.actors.submitter)
    await proxySetAcceptEther(ctx, refuser, false)
    for (const sybil of sybils) {
      await rpc('anvil_impersonateAccount', [sybil])
      await rpc('anvil_setBalance', [sybil, toHex(ether('10'))])
    }
    accounts = [...[...ctx.tracked].map((a) => getAddress(a)), ...sybils]
    contracts = [ctx.system.registry, ctx.system.market, ctx.system.config, ctx.system.game, ctx.system.thresholds, ctx.system.book, ctx.system.disputes].map((a) =>
      getAddress(a),
    )
    for (const actor of Object.values(ctx.extra)) await rpc('anvil_impersonateAccount', [actor.address])
  })

  function rpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return ctx.serialClient.request({method, params} as never) as Promise<T>
  }

  it(`keeps every wei, every lock and every payout straight over ${RUNS} random sequences`, async () => {
    const started = Date.now()
    let actionsRun = 0
    let transactions = 0
    let reverted = 0
    const seen = new Map<string, number>()

    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.tuple(fc.nat({max: 1000}), fc.nat({max: 1000}), fc.nat({max: 1000})), {freq: 3}),
        fc.array(actionArb, {minLength: MIN_ACTIONS, maxLength: MAX_ACTIONS, size: 'max'}),
        async (initialConfig, actions) => {
          const rollBack = await snapshotChain(ctx)
          try {
            const run = new Run()
            // Most sequences start from a random configuration (stakes, windows, shares, forced-error odds) and
            // random market parameters (a moving price or the frozen one, fees, timeouts).
            if (initialConfig) {
              await run.setConfig(...initialConfig)
              await run.setMarket(...initialConfig)
              // Both solvers then ask the floor, so that a falling price does not stop every claim.
              for (const solver of [ctx.actors.solver, ctx.extra.solver2]) {
                await run.send(solver.address, ctx.system.book, solverBookAbi, 'setOffer', [run.marketParams.priceFloor, 4])
              }
            }
            await run.init()
            for (const action of actions) {
              await run.apply(action)
              actionsRun++
              await run.check(action)
            }
            transactions += run.transactions
            reverted += run.reverted
            for (const [event, count] of run.events) seen.set(event, (seen.get(event) ?? 0) + count)
          } finally {
            await rollBack()
          }
        },
      ),
      // includeErrorInReport: the broken invariant itself is in the failure, not only the counterexample.
      {numRuns: RUNS, seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined, includeErrorInReport: true},
    )
    const seconds = (Date.now() - started) / 1000
    console.log(`      ${RUNS} sequences, ${actionsRun} actions, ${transactions} transactions (${reverted} reverted) in ${seconds.toFixed(1)} s`)
    console.log(`      events seen: ${[...seen].sort(([a], [b]) => a.localeCompare(b)).map(([e, n]) => `${e} ${n}`).join(', ')}`)
    // The sequences reached the deep paths, not just the shallow ones.
    for (const event of [
      'TaskSettled',
      'TaskRejected',
      'Registered',
      'SeedFixed',
      'ChallengeCommitted',
      'ChallengeQueued',
      'ChallengeForfeited',
      'RejectionDisputed',
      'DisputeStarted',
      'ForcedErrorRevealed',
      'StakeSlashed',
      'Burned',
      'TaskExpired',
      'VerificationReopened',
      'ClaimTimedOut',
      'OfferSet',
      'OfferWithdrawn',
      'OfferPruned',
      'PriceUpdated',
      'Credited',
      'CreditWithdrawn',
      'CreditedToRefuser',
    ]) {
      assert.ok((seen.get(event) ?? 0) > 0, `no sequence emitted ${event}`)
    }
  })

  /** One sequence: the model the checks compare the chain with. */
  class Run {
    startEther = 0n
    /** The head block as of the last check (every action is checked, so it is current). */
    head = 0n
    gasPaid = 0n
    jackpotLedger = 0n
    taskCount = 0n
    transactions = 0
    reverted = 0
    readonly events = new Map<string, number>()
    readonly settled = new Set<bigint>()
    readonly revealed = new Set<bigint>()
    readonly secrets = new Map<bigint, Hex>()
    readonly proofs = new Map<bigint, {published: Proof; honest: Proof; forced: boolean}>()
    /** What each whistleblower committed to, by `${id}:${verdictBlock}:${whistleblower}`, to open it later. */
    readonly commitments = new Map<string, {segment: number; claim: Hex}>()
    /** What each task's escrow holds by the model: submitted less every shortfall paid out of it. */
    readonly escrows = new Map<bigint, bigint>()
    /**
     * The fields the market does not store, as the events that fixed them say (docs/market.md, "What a task
     * stores"), and the tasks whose fields an action changed: check() holds gensyn's reader to them.
     */
    readonly unstored = new Map<bigint, ReadUnstoredFieldsReturnType>()
    readonly unstoredTouched = new Set<bigint>()
    /** Each task's current state, as its last TaskState event says: what every market call passes (taskState.ts). */
    readonly states = new Map<bigint, Hex[]>()
    /** The reader's own client: it remembers what it read, and the chain is reverted between sequences. */
    reader?: GensynPublicClient
    params: ProtocolParams = {...defaultProtocolParams}
    marketParams: MarketParams = {...ctx.params.market}

    async init(): Promise<void> {
      const r = await this.report()
      this.startEther = r.totalEther
      this.head = r.blockNumber
      this.gasPaid = 0n
      this.jackpotLedger = r.jackpot
      this.taskCount = await read(ctx.system.market, taskMarketAbi, 'taskCount', [])
      this.params = (await read(ctx.system.config, protocolConfigAbi, 'params', [])) as ProtocolParams
      this.marketParams = (await read(ctx.system.config, protocolConfigAbi, 'marketParams', [])) as MarketParams
      const onChain = chainStates({client: ctx.serialClient, market: ctx.system.market})
      for (let id = 1n; id <= this.taskCount; id++) this.states.set(id, await onChain(id))
      for (let id = 1n; id <= this.taskCount; id++) this.escrows.set(id, ((await this.readMarket('getTask', [id])) as {escrow: bigint}).escrow)
    }

    /** The market's state of `id` as the events told this run (no state for an id no task has). */
    readonly stateOf = async (id: bigint): Promise<Hex[]> => this.states.get(id) ?? [...NO_STATE]

    /** One of the market's views, with the task's state in place. */
    async readMarket(functionName: string, args: readonly unknown[]): Promise<any> {
      return read(ctx.system.market, taskMarketAbi, functionName, await withTaskState(this.stateOf, functionName, args))
    }

    report() {
      const {abi} = fixture('MarketLens')
      const states = Array.from({length: this.states.size}, (_, i) => this.states.get(BigInt(i + 1)) ?? [...NO_STATE])
      return read(lens, abi, 'report', [ctx.system.registry, ctx.system.market, contracts, accounts, states]) as Promise<{
        totalEther: bigint
        registryBalance: bigint
        totalStaked: bigint
        totalBurned: bigint
        summedStakes: bigint
        marketBalance: bigint
        totalEscrow: bigint
        jackpot: bigint
        totalCredit: bigint
        summedCredits: bigint
        liveEscrow: bigint
        lockMismatch: Address
        lockedInRegistry: bigint
        lockedByMarket: bigint
        blockNumber: bigint
        bookDemand: bigint
        liveWeight: bigint
        activeMismatch: Address
        activeInBook: bigint
        heldInMarket: bigint
        bookCapacity: bigint
        listedCapacity: bigint
        verifierListMismatch: Address
        price: bigint
      }>
    }

    async check(action: Action): Promise<void> {
      const r = await this.report()
      this.head = r.blockNumber
      const where = `after ${JSON.stringify(action)}`
      assert.equal(r.totalEther + this.gasPaid, this.startEther, `${where}: ${r.totalEther + this.gasPaid - this.startEther} wei appeared`)
      assert.equal(r.registryBalance, r.totalStaked + r.totalBurned, `${where}: registry balance != totalStaked + totalBurned`)
      assert.equal(r.summedStakes, r.totalStaked, `${where}: stakes do not sum to totalStaked`)
      assert.equal(r.marketBalance, r.totalEscrow + r.jackpot + r.totalCredit, `${where}: market balance != totalEscrow + jackpot + totalCredit`)
      assert.equal(r.summedCredits, r.totalCredit, `${where}: the accounts' credits do not sum to totalCredit`)
      assert.equal(r.liveEscrow, r.totalEscrow, `${where}: totalEscrow is not the live tasks' escrow`)
      assert.equal(
        getAddress(r.lockMismatch),
        '0x0000000000000000000000000000000000000000',
        `${where}: ${r.lockMismatch} has ${r.lockedInRegistry} locked, the market's tasks locked ${r.lockedByMarket}`,
      )
      assert.equal(r.jackpot, this.jackpotLedger, `${where}: jackpot is not funded + taxed - paid`)
      assert.equal(r.bookDemand, r.liveWeight, `${where}: the book's demand is not the live tasks' weights`)
      assert.equal(
        getAddress(r.activeMismatch),
        '0x0000000000000000000000000000000000000000',
        `${where}: ${r.activeMismatch} is active in ${r.activeInBook} tasks in the book, holds ${r.heldInMarket}`,
      )
      assert.equal(r.bookCapacity, r.listedCapacity, `${where}: the book's capacity is not the sum of the listed offers`)
      assert.equal(getAddress(r.verifierListMismatch), zeroAddress, `${where}: ${r.verifierListMismatch} is listed without the stake, or staked and not listed`)
      const {priceFloor, priceCeiling} = this.marketParams
      assert.ok(r.price >= priceFloor && r.price <= priceCeiling, `${where}: price ${r.price} outside [${priceFloor}, ${priceCeiling}]`)
      await this.checkUnstored(where)
    }

    /** Each touched task's unstored fields, as the reader reads them, are the events'. */
    async checkUnstored(where: string): Promise<void> {
      this.reader ??= (await createClients({rpcUrl: ctx.anvil.rpcUrl, chainId: ctx.anvil.chainId, batch: false})).publicClient
      for (const id of this.unstoredTouched) {
        // The view's blocks are uint40 (numbers to viem): the reader takes bigints.
        const stored = (await this.readMarket('getTask', [id])) as Omit<ReadUnstoredFieldsParameters, 'taskId'>
        const reader = {publicClient: this.reader, contracts: {market: ctx.system.market, registry: ctx.system.registry}}
        const fields = await readUnstoredFields(reader, {...stored, taskId: id, commitBlock: BigInt(stored.commitBlock), verdictBlock: BigInt(stored.verdictBlock)})
        assert.deepEqual(fields, this.unstored.get(id), `${where}: task ${id}'s unstored fields as read are not the events'`)
      }
      this.unstoredTouched.clear()
    }

    /** The events' side of checkUnstored. */
    foldUnstored(eventName: string, args: Record<string, unknown>): void {
      const id = args.id as bigint
      const known = this.unstored.get(id)
      const noCoin = {secretHash: zeroHash, seed: zeroHash, sealedHonest: zeroHash}
      if (eventName === 'TaskSubmitted') {
        this.unstored.set(id, {specHash: args.specHash as Hex, manifestHash: zeroHash, randomness: zeroHash, reportHash: zeroHash, distance: 0n, ...noCoin})
      } else if (!known) return
      else if (eventName === 'TaskClaimed') known.secretHash = args.secretHash as Hex
      else if (eventName === 'SeedFixed') known.seed = args.seed as Hex
      else if (eventName === 'VerificationClaimed') known.randomness = args.randomness as Hex
      else if (eventName === 'VerdictPosted') Object.assign(known, {reportHash: args.reportHash as Hex, distance: args.distance as bigint})
      else if (eventName === 'ProofCommitted') Object.assign(known, {manifestHash: args.manifestHash as Hex, seed: args.seed as Hex, sealedHonest: args.sealedHonest as Hex})
      else if (eventName === 'VerificationReopened') {
        Object.assign(known, {randomness: zeroHash, reportHash: zeroHash, distance: 0n})
        if (args.manifestHash !== zeroHash) known.manifestHash = args.manifestHash as Hex
      } else if (eventName === 'TaskReopened') Object.assign(known, {manifestHash: zeroHash, randomness: zeroHash, reportHash: zeroHash, distance: 0n, ...noCoin})
      else return
      this.unstoredTouched.add(id)
    }

    // ---------------------------------------------------------------- sending

    /** The refusing contract calls the market (its owner, the submitter, sends the call and any value). */
    async viaRefuser(functionName: string, args: readonly unknown[], value = 0n): Promise<boolean> {
      const data = encodeFunctionData({abi: taskMarketAbi, functionName, args: await withTaskState(this.stateOf, functionName, args)} as never)
      return this.send(refuser.owner.address, refuser.address, fixture('ProxyActor').abi as Abi, 'exec', [ctx.system.market, value, data], value)
    }

    async send(from: Address, to: Address, abi: Abi, functionName: string, args: readonly unknown[], value = 0n): Promise<boolean> {
      const withState = abi === taskMarketAbi ? await withTaskState(this.stateOf, functionName, args) : args
      const data = encodeFunctionData({abi, functionName, args: withState} as never)
      // eth_sendTransactionSync (EIP-7966, anvil 1.7) answers with the receipt once mined: no receipt polls, which
      // were 1.7 calls a transaction (anvil mines after it answers eth_sendTransaction).
      type Receipt = {status: Hex; gasUsed: Hex; effectiveGasPrice: Hex; logs: never[]}
      const receipt = await rpc<Receipt | null>('eth_sendTransactionSync', [{from, to, data, gas: toHex(GAS), value: toHex(value)}])
      assert.ok(receipt, `no receipt for ${functionName}`)
      this.transactions++
      this.gasPaid += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
      if (receipt.status !== '0x1') {
        this.reverted++
        return false
      }
      this.observe(parseEventLogs({abi: eventsIn(eventsAbi, receipt.logs), logs: receipt.logs}) as unknown as {eventName: string; address: Address; args: Record<string, unknown>}[])
      return true
    }

    /** The event-level double-payout checks, and the jackpot ledger. */
    observe(logs: {eventName: string; address: Address; args: Record<string, unknown>}[]): void {
      const slashedHere = new Set<string>()
      for (const log of logs) {
        this.events.set(log.eventName, (this.events.get(log.eventName) ?? 0) + 1)
        if (getAddress(log.address) !== getAddress(ctx.system.market)) continue
        const args = log.args
        if (log.eventName === 'TaskState') this.states.set(args.id as bigint, [...(args.state as Hex[])])
        this.foldUnstored(log.eventName, args)
        // The hostile submitter's refunds: proof that settlements and expiries went through past it.
        if (log.eventName === 'Credited' && getAddress(args.account as Address) === refuser.address) {
          this.events.set('CreditedToRefuser', (this.events.get('CreditedToRefuser') ?? 0) + 1)
        }
        switch (log.eventName) {
          case 'TaskSubmitted':
            this.taskCount++
            this.escrows.set(args.id as bigint, args.escrow as bigint)
            break
          case 'TaskSettled': {
            const id = args.id as bigint
            assert.ok(!this.settled.has(id), `task ${id} settled twice`)
            this.settled.add(id)
            this.jackpotLedger += args.tax as bigint
            const {solverPaid, verifierPaid, refunded, tax} = args as Record<string, bigint>
            assert.equal(refunded, this.escrows.get(id)! - solverPaid! - verifierPaid! - tax!, `task ${id}: refunded is not the escrow less the rewards`)
            break
          }
          case 'TaskRejected': {
            const id = args.id as bigint
            this.escrows.set(id, this.escrows.get(id)! - (args.fromEscrow as bigint))
            break
          }
          case 'TaskExpired': {
            const id = args.id as bigint
            assert.equal(args.refunded, this.escrows.get(id), `task ${id}: an expiry refunds what is left of the escrow`)
            break
          }
          case 'JackpotFunded':
            this.jackpotLedger += args.amount as bigint
            break
          case 'TaskReopened':
            this.revealed.delete(args.id as bigint)
            break
          case 'ForcedErrorRevealed': {
            const id = args.id as bigint
            assert.ok(!this.revealed.has(id), `task ${id}: a forced error revealed twice in one attempt`)
            this.revealed.add(id)
            const catchers = (args.catchers as Address[]).map((a) => getAddress(a))
            assert.equal(new Set(catchers).size, catchers.length, `task ${id}: a catcher paid twice`)
            const paid = args.paidEach as bigint[]
            for (let i = 1; i < paid.length; i++) assert.ok(paid[i]! <= paid[i - 1]!, 'shares decrease')
            this.jackpotLedger -= paid.reduce((a, b) => a + b, 0n)
            break
          }
          case 'StakeSlashed': {
            const key = `${args.id as bigint}:${getAddress(args.account as Address)}`
            assert.ok(!slashedHere.has(key), `${key} slashed twice in one transaction`)
            slashedHere.add(key)
            const {amount, toWinner, toTreasury, burned} = args as Record<string, bigint>
            assert.equal(toWinner! + toTreasury! + burned!, amount)
            break
          }
        }
      }
    }

    market(from: Address, functionName: string, args: readonly unknown[], value = 0n): Promise<boolean> {
      return this.send(from, ctx.system.market, taskMarketAbi, functionName, args, value)
    }

    game(from: Address, functionName: string, args: readonly unknown[]): Promise<boolean> {
      return this.send(from, ctx.system.game, pinpointGameAbi, functionName, args)
    }

    // ---------------------------------------------------------------- actions

    async apply({kind, a, b, c}: Action): Promise<void> {
      const {actors, extra} = ctx
      const everyone = [...[...Object.values(actors), ...Object.values(extra)].map((x) => x.address), ...sybils]
      const pickTask = () => (this.taskCount === 0n ? 0n : 1n + (BigInt(a) % this.taskCount))
      switch (kind) {
        case 'submit': {
          const workUnits = [1n, 1000n, 250_000n, 750_000n][a % 4]!
          const maxSteps = [4n, 6n, 10n][b % 3]!
          const price = (await read(ctx.system.book, solverBookAbi, 'currentPrice', [])) as bigint
          // At the price, above it, or at the floor (below a price that moved up: PriceAboveMax at the claim).
          const maxPrice = [price, 2n * price, price, 2n * price, this.marketParams.priceFloor][c % 5]!
          const parentId = b % 5 === 0 && this.taskCount > 0n ? pickTask() : 0n
          const extraEscrow = [0n, 1n, ether('1')][(a + c) % 3]!
          // A task at a high price is one work unit (the submitter holds 1000 ether).
          const units = escrowOf(workUnits, maxPrice, 10000n) > ether('20') ? 1n : workUnits
          const escrow = escrowOf(units, maxPrice, BigInt(this.marketParams.verifierFeeBps)) + extraEscrow - (c % 11 === 0 ? 1n : 0n)
          const args = [label(`spec ${a}`), units, maxSteps, maxPrice, parentId] as const
          // One submission in four comes from the contract that refuses ether: no settlement may depend on it.
          if ((a + b) % 4 === 3) await this.viaRefuser('submitTask', args, escrow)
          else await this.market(actors.submitter.address, 'submitTask', args, escrow)
          return
        }
        case 'mine':
          await rpc('anvil_mine', [toHex(1 + (a % 8))])
          return
        case 'time':
          await rpc('evm_increaseTime', [toHex(a % 400)])
          await rpc('anvil_mine', [toHex(1)])
          return
        case 'expire':
          if (this.taskCount > 0n) await this.market(actors.other.address, 'expire', [pickTask()])
          return
        case 'fund':
          await this.market(everyone[b % everyone.length]!, 'fundJackpot', [], 1n + (BigInt(c) * 10n ** 12n))
          return
        case 'config':
          await this.setConfig(a, b, c)
          return
        case 'market':
          await this.setMarket(a, b, c)
          return
        case 'offer': {
          const solver = [actors.solver.address, extra.solver2.address][a % 2]!
          if (b % 4 === 0) await this.send(solver, ctx.system.book, solverBookAbi, 'withdrawOffer', [])
          // Anyone prunes an offer its stake no longer backs (after an unbond or a slash; OfferBacked otherwise).
          else if (c % 5 === 4) await this.send(actors.other.address, ctx.system.book, solverBookAbi, 'pruneOffer', [solver])
          else {
            const ask = [this.marketParams.priceFloor, 1n, TEST_PRICE, 2n * TEST_PRICE][c % 4]!
            // Sometimes all the stake backs (so that the next unbond or slash leaves it prunable).
            const [free, locked] = (await read(ctx.system.registry, roleRegistryAbi, 'stakeOf', [solver])) as [bigint, bigint]
            const solverStake = this.params.solverStake
            const all = solverStake === 0n ? 4n : (free + locked) / solverStake
            const capacity = b % 4 === 3 && all >= 1n && all < 2n ** 32n ? Number(all) : 1 + (b % 4)
            await this.send(solver, ctx.system.book, solverBookAbi, 'setOffer', [ask, capacity])
          }
          return
        }
        case 'unbond': {
          const who = everyone[a % everyone.length]!
          if (b % 2 === 0) {
            const [free] = await read(ctx.system.registry, roleRegistryAbi, 'stakeOf', [who])
            await this.send(who, ctx.system.registry, roleRegistryAbi, 'requestUnbond', [(free as bigint) / BigInt(2 + (c % 5))])
            // A watcher prunes the offer the unbonded stake may no longer back (OfferBacked or NotListed otherwise).
            if (c % 2 === 0) await this.send(actors.other.address, ctx.system.book, solverBookAbi, 'pruneOffer', [who])
          } else {
            await this.send(who, ctx.system.registry, roleRegistryAbi, 'withdraw', [])
          }
          return
        }
        case 'withdraw': {
          // Anyone pulls its market credit (fees, refunds), to itself or to another account; often there is none.
          // Half the time someone with a credit (credits are rare: only settlements, expiries and rejections make them).
          const credited = c % 2 === 1 ? await this.firstCredited(everyone) : undefined
          const who = credited ?? everyone[a % everyone.length]!
          const to = b % 3 === 0 ? everyone[c % everyone.length]! : who
          // The refuser's own withdrawal reverts TransferFailed; to another address it goes through.
          if (c % 4 === 0) await this.viaRefuser('withdraw', [b % 2 === 0 ? refuser.address : to])
          else await this.market(who, 'withdraw', [to])
          return
        }
        case 'junk':
          if (this.taskCount > 0n) await this.junk(pickTask(), everyone[b % everyone.length]!, c)
          return
        case 'sybil':
          return this.sybil(sybils[a % sybils.length]!, pickTask(), b, c)
        case 'grind':
          if (this.taskCount > 0n) await this.grind(pickTask(), everyone[b % everyone.length]!, a, c)
          return
        case 'step':
          if (this.taskCount === 0n) await this.apply({kind: 'submit', a, b, c})
          else await this.step(pickTask(), a, b, c)
          return
      }
    }

    async setConfig(a: number, b: number, c: number): Promise<void> {
      const winner = [5000, 0, 10000, 3333][a % 4]!
      const treasury = [3000, 0, 10000 - winner, 1][b % 4]!
      const params: ProtocolParams = {
        solverStake: [ether('1'), 0n, ether('0.2'), ether('1') + 1n, 7n][a % 5]!,
        verifierStake: [ether('0.5'), 0n, 3n, ether('2')][b % 4]!,
        challengeDeposit: [ether('0.2'), 0n, 7n][c % 3]!,
        challengeWindowBlocks: BigInt(1 + (a % 5)),
        openWindowBlocks: BigInt(1 + (c % 3)),
        revealWindowBlocks: BigInt(1 + (b % 4)),
        roundTimeoutBlocks: BigInt(1 + (c % 4)),
        committeeTimeoutBlocks: BigInt(1 + (a % 3)),
        taxBps: [500, 0, 10000, 333][c % 4]!,
        slashWinnerBps: winner,
        slashTreasuryBps: Math.min(treasury, 10000 - winner),
        slashBurnBps: 10000 - winner - Math.min(treasury, 10000 - winner),
        forcedErrorBps: [5000, 0, 10000, 100][b % 4]!,
        jackpotCap: [ether('1'), 0n, 7n, 2n ** 128n - 1n][c % 4]!,
        maxChallengers: 1 + (a % 3),
        committeeSize: 1 + (b % 3),
        maxOnchainElements: 4096,
      }
      if (await this.send(ctx.actors.deployer.address, ctx.system.config, protocolConfigAbi, 'setParams', [params])) this.params = params
    }

    /** Random market parameters: the frozen test price or a moving one, fees, slashes and timeouts. */
    async setMarket(a: number, b: number, c: number): Promise<void> {
      const moving = a % 3 !== 0
      const floor = moving ? [10n ** 11n, TEST_PRICE / 2n, 1n][b % 3]! : TEST_PRICE
      const ceiling = moving ? [10n ** 16n, 2n * TEST_PRICE, TEST_PRICE][c % 3]! : TEST_PRICE
      const params: MarketParams = {
        initialPrice: TEST_PRICE,
        priceFloor: floor,
        priceCeiling: ceiling,
        priceStepBps: [1250, 5000, 1][a % 3]!,
        targetUtilizationBps: [8000, 10000, 1][b % 3]!,
        priceEpochBlocks: 1 + (c % 5),
        verifierFeeBps: [2000, 0, 10000][a % 3]!,
        timeoutSlashBps: [2500, 0, 10000][b % 3]!,
        claimTimeoutSeconds: [100n, 30n, 400n][c % 3]!,
        trainingBaseSeconds: [100n, 0n, 30n][a % 3]!,
        minWorkUnitsPerSecond: [2500n, 1_000_000n, 1000n][b % 3]!,
        verificationTimeoutSeconds: [300n, 60n][c % 2]!,
      }
      if (await this.send(ctx.actors.deployer.address, ctx.system.config, protocolConfigAbi, 'setMarketParams', [params])) this.marketParams = params
    }

    async firstCredited(candidates: Address[]): Promise<Address | undefined> {
      for (const who of candidates) if (((await read(ctx.system.market, taskMarketAbi, 'creditOf', [who])) as bigint) > 0n) return who
      return undefined
    }

    /**
     * A zero-stake registrant: registers any roles for free (again and again), then tries what only stake buys:
     * an offer, a claim, a verification, a challenge. The checks after it hold it to nothing locked, nothing
     * listed (the committee pool) and no capacity in the book.
     */
    async sybil(who: Address, id: bigint, b: number, c: number): Promise<void> {
      const tries: [Address, Abi, string, readonly unknown[]][] = [
        [ctx.system.registry, roleRegistryAbi, 'register', [1 + (b % 7)]],
        [ctx.system.book, solverBookAbi, 'setOffer', [this.marketParams.priceFloor, 1 + (b % 8)]],
        [ctx.system.market, taskMarketAbi, 'claimTask', [id, label(`sybil secret ${c}`)]],
        [ctx.system.market, taskMarketAbi, 'claimVerification', [id]],
        [ctx.system.market, taskMarketAbi, 'commitChallenge', challengeCommitArgs(id, who, 0, label('sybil claim'))],
      ]
      const [to, abi, functionName, args] = tries[c % tries.length]!
      await this.send(who, to, abi, functionName, args)
    }

    /**
     * A grinder: calls the draws (fixSeed, renewRandomness, drawCommittee) at moments of its choosing, a third of
     * the time after waiting out the EVM's 256-block memory. A draw once recorded never changes: the forced-error
     * seed of a claim, the verification randomness of a commitment, a drawn committee.
     */
    async grind(id: bigint, who: Address, a: number, c: number): Promise<void> {
      if (c % 3 === 0) await rpc('anvil_mine', [toHex(258)])
      const disputes = (await read(ctx.system.game, pinpointGameAbi, 'disputeCount', [])) as bigint
      const disputeId = disputes === 0n ? 0n : 1n + (BigInt(a) % disputes)
      const draws = async () => {
        const t = (await this.readMarket('getTask', [id])) as {attempts: number; claimBlock: bigint; commitBlock: bigint; seed: Hex; verifier: Address}
        const [members] = disputeId === 0n ? [[]] : ((await read(ctx.system.game, pinpointGameAbi, 'committeeOf', [disputeId])) as [Address[], number[]])
        // The randomness is not stored: it is the hash of block commitBlock + 1 while a verifier holds the task.
        const randomness = t.verifier === zeroAddress ? undefined : `${t.attempts}:${t.verifier}:${t.commitBlock}`
        return {claim: `${t.attempts}:${t.claimBlock}`, seed: t.seed, randomness, members}
      }
      const before = await draws()
      if (c % 3 === 2 && disputeId !== 0n) await this.game(who, 'drawCommittee', [disputeId])
      else await this.market(who, c % 3 === 1 ? 'renewRandomness' : 'fixSeed', [id])
      const after = await draws()
      if (before.claim === after.claim && before.seed !== zeroHash) assert.equal(after.seed, before.seed, `task ${id}: a grinder changed its seed`)
      if (before.randomness !== undefined && after.randomness !== undefined) assert.equal(after.randomness, before.randomness, `task ${id}: a grinder moved its randomness's block`)
      if (before.members.length > 0) assert.deepEqual(after.members, before.members, `dispute ${disputeId}: a grinder changed its committee`)
    }

    /** A call that usually reverts: the wrong actor, the wrong time or wrong data. */
    async junk(id: bigint, who: Address, c: number): Promise<void> {
      const proof = this.proofs.get(id)?.published ?? makeProof('junk')
      const segment = c % Math.max(1, proof.count - 1)
      const calls: [string, readonly unknown[]][] = [
        ['settle', [id]],
        ['claimTask', [id, zeroHash]],
        ['claimVerification', [id]],
        ['postVerdict', [id, c % 2 === 0, zeroHash, 0n, 0, zeroHash]],
        ['commitChallenge', [id, c % 5 === 0 ? zeroHash : label(`junk commitment ${c}`), '0x']],
        ['openChallenge', [id, segment, label('junk'), testSalt, proof.checkpoints[segment], merkleProof(proof.checkpoints, segment), proof.checkpoints[segment + 1] ?? zeroHash, []]],
        ['disputeRejection', [id, zeroHash, [], zeroHash, []]],
        ['revealForcedError', [id, label('wrong secret'), label('seed'), label('root'), label('manifest')]],
        ['commitProof', [id, proof.root, proof.manifest, proof.count, proof.interval, proof.totalSteps, zeroHash, {checkpoint: zeroHash, proof: [], parentFinalProof: []}]],
      ]
      const [fn, args] = calls[c % calls.length]!
      await this.market(who, fn, args)
    }

    /** The natural next move of task `id`, with random choices. */
    async step(id: bigint, a: number, b: number, c: number): Promise<void> {
      const {actors, extra} = ctx
      const t = await this.readMarket('getTask', [id])
      const head = this.head
      const solvers = [actors.solver.address, extra.solver2.address]
      const verifiers = [actors.verifier.address, actors.verifier2.address]
      const wbs = [extra.wb1.address, extra.wb2.address, extra.wb3.address]
      const mine = (n: bigint) => rpc('anvil_mine', [toHex(n > 0n ? n : 1n)])
      switch (t.status) {
        case Status.Submitted: {
          const secret = label(`secret ${id} ${t.attempts} ${a}`)
          if (await this.market(solvers[a % 2]!, 'claimTask', [id, secretHashOf(secret)])) this.secrets.set(id, secret)
          return
        }
        case Status.Claimed: {
          if (head <= BigInt(t.claimBlock) + 1n) return void (await mine(1n))
          const secret = this.secrets.get(id) ?? zeroHash
          const forced = await this.readMarket('forcedErrorOf', [id, secret]).catch(() => false)
          // The whole range most of the time, or an early stop, or (rarely) one step too many.
          const totalSteps = b % 3 === 0 ? 1n + (BigInt(c) % t.maxSteps) : b % 17 === 0 ? t.maxSteps + 1n : t.maxSteps
          const interval = BigInt(1 + (c % 5))
          const count = Number((totalSteps + interval - 1n) / interval) + 1
          // A task with a parent starts from the parent's final committed checkpoint (the honest one after a reveal).
          const parent = t.parentId === 0n ? undefined : await this.finalProof(t.parentId)
          const build = (name: string) => (parent ? childProof(parent, name, {count, interval, totalSteps}) : makeProof(name, {count, interval, totalSteps}))
          const honest = build(`honest ${id} ${t.attempts}`)
          // A forced solver publishes a wrong proof; so does a cheater (one in five), sealing nothing useful.
          const cheat = !forced && a % 5 === 0
          const published = forced || cheat ? build(`wrong ${id} ${t.attempts} ${a}`) : honest
          // Stacking proofs: the right ones, or (one in seven) ones that prove nothing.
          const start: Start = parent ? (a % 7 === 0 ? {...startOf(parent, published), parentFinalProof: []} : startOf(parent, published)) : noStart
          const ok = await this.market(t.solver, 'commitProof', [
            id,
            published.root,
            published.manifest,
            count,
            interval,
            totalSteps,
            sealOf(honest, secret),
            {checkpoint: start.checkpoint, proof: start.proof, parentFinalProof: start.parentFinalProof},
          ])
          if (ok) this.proofs.set(id, {published, honest, forced})
          return
        }
        case Status.Committed: {
          if (head <= BigInt(t.commitBlock) + 1n) return void (await mine(1n))
          await this.market(verifiers[(a + b) % 2]!, 'claimVerification', [id])
          return
        }
        case Status.Verifying: {
          const p = this.proofs.get(id)
          const wrong = p !== undefined && p.published.root !== p.honest.root
          // Mostly honest verifiers (reject wrong proofs, accept right ones); a lazy or malicious one otherwise.
          const accepted = b % 4 === 0 ? !wrong : wrong ? b % 4 === 1 : b % 4 !== 1
          const count = p?.published.count ?? 2
          const segment = c % Math.max(1, count - 1)
          const replay = c % 6 === 0 && p ? p.published.checkpoints[segment + 1]! : label(`replay ${id} ${segment}`)
          await this.market(t.verifier, 'postVerdict', [id, accepted, label('report'), BigInt(c), accepted ? 0 : segment, accepted ? zeroHash : replay])
          return
        }
        case Status.Verified: {
          const p = this.proofs.get(id)?.published ?? makeProof('unknown')
          if (head < t.challengeEndBlock) {
            const choice = a % 4
            const segment = b % Math.max(1, p.count - 1)
            if (choice <= 1 && t.accepted) {
              const claim = c % 7 === 0 ? p.checkpoints[segment + 1]! : label(`claim ${c % 3}`)
              const wb = wbs[c % 3]!
              // Hidden until the open window: only the commitment goes on chain.
              if (await this.market(wb, 'commitChallenge', challengeCommitArgs(id, wb, segment, claim))) {
                this.commitments.set(`${id}:${t.verdictBlock}:${wb}`, {segment, claim})
              }
            } else if (choice <= 1) {
              const s = t.rejectSegment
              await this.market(t.solver, 'disputeRejection', [id, p.checkpoints[s]!, merkleProof(p.checkpoints, s), p.checkpoints[s + 1]!, merkleProof(p.checkpoints, s + 1)])
            } else {
              await mine(1n)
            }
            return
          }
          if (head < t.openEndBlock) {
            // Every whistleblower opens what it committed to (all in this step: each transaction mines a block and
            // the window is short), except now and then one that never does (a forfeit).
            const due = wbs.filter((w) => this.commitments.has(`${id}:${t.verdictBlock}:${w}`))
            if (due.length === 0) return void (await mine(1n))
            for (const [i, wb] of due.entries()) {
              const committed = this.commitments.get(`${id}:${t.verdictBlock}:${wb}`)!
              this.commitments.delete(`${id}:${t.verdictBlock}:${wb}`)
              if (i === 0 && a % 5 === 0) continue
              await this.market(wb, 'openChallenge', openArgs(id, p, committed.segment, committed.claim))
            }
            return
          }
          if (head < t.revealEndBlock) {
            const model = this.proofs.get(id)
            if (model?.forced && a % 4 !== 0) {
              const seed = this.unstored.get(id)?.seed ?? zeroHash
              await this.market(t.solver, 'revealForcedError', [id, this.secrets.get(id) ?? zeroHash, seed, model.honest.root, model.honest.manifest])
            } else {
              await mine(t.revealEndBlock - head)
            }
            return
          }
          if (t.activeDispute !== 0n) return this.gameMove(id, t.activeDispute, head, a, b, c)
          const settled = await this.market(actors.other.address, 'settle', [id])
          // A paid solver often collects at once (credits are otherwise rare by the time a withdraw action comes).
          if (settled && c % 3 === 0) await this.market(t.solver, 'withdraw', [t.solver])
          return
        }
        default:
          await this.market(actors.other.address, c % 2 === 0 ? 'settle' : 'expire', [id])
      }
    }

    /** The proof task `id` has committed now (its honest one once a forced error was revealed). */
    async finalProof(id: bigint): Promise<Proof | undefined> {
      const model = this.proofs.get(id)
      if (!model) return undefined
      const t = await this.readMarket('getTask', [id])
      return t.proofRoot === model.honest.root ? model.honest : model.published
    }

    async gameMove(id: bigint, disputeId: bigint, head: bigint, a: number, b: number, c: number): Promise<void> {
      const d = await read(ctx.system.game, pinpointGameAbi, 'getDispute', [disputeId])
      if (d.phase === Phase.Resolved) return void (await this.market(ctx.actors.other.address, 'settle', [id]))
      if (head >= d.deadline || a % 9 === 0) {
        if (head < d.deadline) await rpc('anvil_mine', [toHex(d.deadline - head)])
        await this.game(ctx.actors.other.address, 'timeout', [disputeId])
        return
      }
      const party = a % 2 === 0 ? d.prover : d.challenger
      const own = (what: string) => (b % 3 === 0 ? label(`agreed ${what}`) : label(`${party} ${what}`))
      switch (d.phase) {
        case Phase.Steps:
          await this.game(party, 'postState', [disputeId, own(`state ${d.lo} ${d.hi}`)])
          return
        case Phase.TraceHeader:
          await this.game(party, 'postTraceHeader', [disputeId, 1 + (c % 3), own(`graph ${c % 3}`), own('final')])
          return
        case Phase.Operators:
          await this.game(party, 'postCommitment', [disputeId, own(`commitment ${d.lo} ${d.hi}`)])
          return
        case Phase.Arbitration:
          await this.game(party, 'escalate', [disputeId])
          return
        case Phase.Committee: {
          // Undrawn: anyone draws (it reverts CommitteeNotDrawn in the block after the anchor: counted, not fatal).
          if (d.drawAnchor !== 0n) {
            await this.game(party, 'drawCommittee', [disputeId])
            return
          }
          const [members] = await read(ctx.system.game, pinpointGameAbi, 'committeeOf', [disputeId])
          const member = members[c % Math.max(1, members.length)]
          if (member) await this.game(member, 'vote', [disputeId, 1 + (b % 3)])
          else await rpc('anvil_mine', [toHex(1)])
          return
        }
      }
    }
  }

  function read<const abi extends Abi>(address: Address, abi: abi, functionName: string, args: readonly unknown[]): Promise<any> {
    return ctx.serialClient.readContract({address, abi, functionName, args} as never)
  }
})
