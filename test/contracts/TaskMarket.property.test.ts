import assert from 'node:assert/strict'

import fc from 'fast-check'
import {type Abi, type Address, encodeFunctionData, getAddress, type Hex, parseEther, parseEventLogs, toHex, zeroHash} from 'viem'

import {defaultProtocolParams, type ProtocolParams} from '../../src/chain/deployContracts.js'
import {pinpointGameAbi, protocolConfigAbi, roleRegistryAbi, taskMarketAbi} from '../../src/chain/generated/index.js'
import {merkleProof} from '../../src/pol/merkle.js'
import {useChain} from './helpers/chain.js'
import {fixture} from './helpers/compileFixtures.js'
import {label, makeProof, type Proof, sealOf, secretHashOf, Status} from './helpers/tasks.js'

/** PinpointGame.Phase. */
const Phase = {None: 0, Steps: 1, TraceHeader: 2, Operators: 3, Arbitration: 4, Committee: 5, Resolved: 6} as const
const GAS = 3_000_000n
const ether = parseEther
/** Sequences (fast-check runs) and their length; PROPERTY_RUNS overrides the count. */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000)
const MIN_ACTIONS = 8
const MAX_ACTIONS = 30

const eventsAbi = [...taskMarketAbi, ...roleRegistryAbi, ...pinpointGameAbi].filter((item) => item.type === 'event') as Abi

type Action = {kind: Kind; a: number; b: number; c: number}
const kinds = {
  step: 20,
  submit: 2,
  mine: 3,
  time: 2,
  expire: 1,
  fund: 1,
  config: 1,
  junk: 2,
  unbond: 1,
} as const
type Kind = keyof typeof kinds

const actionArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.oneof(...Object.entries(kinds).map(([kind, weight]) => ({arbitrary: fc.constant(kind as Kind), weight}))),
  a: fc.nat({max: 1_000_000}),
  b: fc.nat({max: 1_000_000}),
  c: fc.nat({max: 1_000_000}),
})

/**
 * Thousands of random sequences of role actions (submit, claim, commit honest/forced/wrong proofs, claim
 * verification, verdicts, challenges, rejection disputes, reveals, game moves and timeouts, committee votes,
 * settle, expire, config changes, jackpot funding, unbonding, junk calls that revert, mined blocks and time)
 * against one anvil, reverted to a snapshot between sequences. After every action:
 * - conservation to the wei: the ether of every account and contract plus the gas paid since the start is
 *   unchanged;
 * - the registry holds totalStaked + totalBurned, totalStaked is the sum of every account's stake; the market holds
 *   totalEscrow + jackpot, totalEscrow is the escrow of the live tasks;
 * - every account's locked stake is exactly what the market's live tasks locked for it (so no lock is released or
 *   slashed twice, and none is left behind);
 * - no double payout: no task settles twice, no forced error is revealed (and its jackpot paid) twice in one
 *   attempt, no catcher is paid twice in one reveal, no stake is slashed twice in one transaction, and the
 *   jackpot equals what was funded and taxed less what was paid out.
 */
describe('TaskMarket properties (random action sequences on anvil)', function () {
  this.timeout(600_000)
  const ctx = useChain({stake: ether('50'), disputeActors: true})
  let lens: Address
  let accounts: Address[]
  let contracts: Address[]

  before(async () => {
    const {abi, bytecode} = fixture('MarketLens')
    const hash = await ctx.actors.deployer.wallet.deployContract({abi, bytecode})
    lens = getAddress((await ctx.publicClient.waitForTransactionReceipt({hash})).contractAddress!)
    accounts = [...ctx.tracked].map((a) => getAddress(a))
    contracts = [ctx.system.registry, ctx.system.market, ctx.system.config, ctx.system.game, ctx.system.thresholds].map((a) => getAddress(a))
    for (const actor of Object.values(ctx.extra)) await rpc('anvil_impersonateAccount', [actor.address])
  })

  function rpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return ctx.publicClient.request({method, params} as never) as Promise<T>
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
          const snapshot = await rpc<Hex>('evm_snapshot', [])
          try {
            const run = new Run()
            // Most sequences start from a random configuration (stakes, windows, shares, forced-error odds).
            if (initialConfig) await run.setConfig(...initialConfig)
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
            await rpc('evm_revert', [snapshot])
          }
        },
      ),
      {numRuns: RUNS, seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined},
    )
    const seconds = (Date.now() - started) / 1000
    console.log(`      ${RUNS} sequences, ${actionsRun} actions, ${transactions} transactions (${reverted} reverted) in ${seconds.toFixed(1)} s`)
    console.log(`      events seen: ${[...seen].sort(([a], [b]) => a.localeCompare(b)).map(([e, n]) => `${e} ${n}`).join(', ')}`)
    // The sequences reached the deep paths, not just the shallow ones.
    for (const event of ['TaskSettled', 'TaskRejected', 'ChallengeQueued', 'RejectionDisputed', 'DisputeStarted', 'ForcedErrorRevealed', 'StakeSlashed', 'Burned', 'TaskExpired', 'VerificationReopened']) {
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
    params: ProtocolParams = {...defaultProtocolParams}

    async init(): Promise<void> {
      const r = await this.report()
      this.startEther = r.totalEther
      this.head = r.blockNumber
      this.gasPaid = 0n
      this.jackpotLedger = r.jackpot
      this.taskCount = await read(ctx.system.market, taskMarketAbi, 'taskCount', [])
      this.params = (await read(ctx.system.config, protocolConfigAbi, 'params', [])) as ProtocolParams
    }

    report() {
      const {abi} = fixture('MarketLens')
      return read(lens, abi, 'report', [ctx.system.registry, ctx.system.market, contracts, accounts]) as Promise<{
        totalEther: bigint
        registryBalance: bigint
        totalStaked: bigint
        totalBurned: bigint
        summedStakes: bigint
        marketBalance: bigint
        totalEscrow: bigint
        jackpot: bigint
        liveEscrow: bigint
        lockMismatch: Address
        lockedInRegistry: bigint
        lockedByMarket: bigint
        blockNumber: bigint
      }>
    }

    async check(action: Action): Promise<void> {
      const r = await this.report()
      this.head = r.blockNumber
      const where = `after ${JSON.stringify(action)}`
      assert.equal(r.totalEther + this.gasPaid, this.startEther, `${where}: ${r.totalEther + this.gasPaid - this.startEther} wei appeared`)
      assert.equal(r.registryBalance, r.totalStaked + r.totalBurned, `${where}: registry balance != totalStaked + totalBurned`)
      assert.equal(r.summedStakes, r.totalStaked, `${where}: stakes do not sum to totalStaked`)
      assert.equal(r.marketBalance, r.totalEscrow + r.jackpot, `${where}: market balance != totalEscrow + jackpot`)
      assert.equal(r.liveEscrow, r.totalEscrow, `${where}: totalEscrow is not the live tasks' escrow`)
      assert.equal(
        getAddress(r.lockMismatch),
        '0x0000000000000000000000000000000000000000',
        `${where}: ${r.lockMismatch} has ${r.lockedInRegistry} locked, the market's tasks locked ${r.lockedByMarket}`,
      )
      assert.equal(r.jackpot, this.jackpotLedger, `${where}: jackpot is not funded + taxed - paid`)
    }

    // ---------------------------------------------------------------- sending

    async send(from: Address, to: Address, abi: Abi, functionName: string, args: readonly unknown[], value = 0n): Promise<boolean> {
      const data = encodeFunctionData({abi, functionName, args} as never)
      const hash = await rpc<Hex>('eth_sendTransaction', [{from, to, data, gas: toHex(GAS), value: toHex(value)}])
      type Receipt = {status: Hex; gasUsed: Hex; effectiveGasPrice: Hex; logs: never[]}
      let receipt = await rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
      for (let tries = 0; receipt === null && tries < 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 2))
        receipt = await rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
      }
      assert.ok(receipt, `no receipt for ${functionName} (${hash})`)
      this.transactions++
      this.gasPaid += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
      if (receipt.status !== '0x1') {
        this.reverted++
        return false
      }
      this.observe(parseEventLogs({abi: eventsAbi, logs: receipt.logs}) as unknown as {eventName: string; address: Address; args: Record<string, unknown>}[])
      return true
    }

    /** The event-level double-payout checks, and the jackpot ledger. */
    observe(logs: {eventName: string; address: Address; args: Record<string, unknown>}[]): void {
      const slashedHere = new Set<string>()
      for (const log of logs) {
        this.events.set(log.eventName, (this.events.get(log.eventName) ?? 0) + 1)
        if (getAddress(log.address) !== getAddress(ctx.system.market)) continue
        const args = log.args
        switch (log.eventName) {
          case 'TaskSubmitted':
            this.taskCount++
            break
          case 'TaskSettled': {
            const id = args.id as bigint
            assert.ok(!this.settled.has(id), `task ${id} settled twice`)
            this.settled.add(id)
            this.jackpotLedger += args.tax as bigint
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
      const everyone = [...Object.values(actors), ...Object.values(extra)].map((x) => x.address)
      const pickTask = () => (this.taskCount === 0n ? 0n : 1n + (BigInt(a) % this.taskCount))
      switch (kind) {
        case 'submit': {
          const solverReward = [0n, ether('0.1'), ether('1.5')][a % 3]!
          const verifierReward = [0n, ether('0.3'), ether('1.5')][b % 3]!
          const extraEscrow = [0n, 1n, ether('1')][c % 3]!
          const timeouts = [BigInt(30 + (a % 300)), BigInt(30 + (b % 300)), BigInt(30 + (c % 300))]
          await this.market(actors.submitter.address, 'submitTask', [label(`spec ${a}`), solverReward, verifierReward, ...timeouts], solverReward + verifierReward + extraEscrow)
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
        case 'unbond': {
          const who = everyone[a % everyone.length]!
          if (b % 2 === 0) {
            const [free] = await read(ctx.system.registry, roleRegistryAbi, 'stakeOf', [who])
            await this.send(who, ctx.system.registry, roleRegistryAbi, 'requestUnbond', [(free as bigint) / BigInt(2 + (c % 5))])
          } else {
            await this.send(who, ctx.system.registry, roleRegistryAbi, 'withdraw', [])
          }
          return
        }
        case 'junk':
          if (this.taskCount > 0n) await this.junk(pickTask(), everyone[b % everyone.length]!, c)
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
        revealWindowBlocks: BigInt(1 + (b % 4)),
        roundTimeoutBlocks: BigInt(1 + (c % 4)),
        committeeTimeoutBlocks: BigInt(1 + (a % 3)),
        taxBps: [500, 0, 10000, 333][c % 4]!,
        slashWinnerBps: winner,
        slashTreasuryBps: Math.min(treasury, 10000 - winner),
        slashBurnBps: 10000 - winner - Math.min(treasury, 10000 - winner),
        forcedErrorBps: [5000, 0, 10000, 100][b % 4]!,
        jackpotCap: [ether('1'), 0n, 7n, 2n ** 256n - 1n][c % 4]!,
        maxChallengers: 1 + (a % 3),
        committeeSize: 1 + (b % 3),
        maxOnchainElements: 4096,
      }
      if (await this.send(ctx.actors.deployer.address, ctx.system.config, protocolConfigAbi, 'setParams', [params])) this.params = params
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
        ['challenge', [id, segment, label('junk'), proof.checkpoints[segment], merkleProof(proof.checkpoints, segment), proof.checkpoints[segment + 1] ?? zeroHash, []]],
        ['disputeRejection', [id, zeroHash, [], zeroHash, []]],
        ['revealForcedError', [id, label('wrong secret'), label('root'), label('manifest')]],
        ['commitProof', [id, proof.root, proof.manifest, proof.count, proof.interval, proof.totalSteps, zeroHash]],
      ]
      const [fn, args] = calls[c % calls.length]!
      await this.market(who, fn, args)
    }

    /** The natural next move of task `id`, with random choices. */
    async step(id: bigint, a: number, b: number, c: number): Promise<void> {
      const {actors, extra} = ctx
      const t = await read(ctx.system.market, taskMarketAbi, 'getTask', [id])
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
          if (head <= t.claimBlock + 1n) return void (await mine(1n))
          const secret = this.secrets.get(id) ?? zeroHash
          const forced = await read(ctx.system.market, taskMarketAbi, 'forcedErrorOf', [id, secret]).catch(() => false)
          const count = 2 + (b % 4)
          const interval = BigInt(1 + (c % 5))
          const totalSteps = interval * BigInt(count - 2) + 1n + (BigInt(c) % interval)
          const honest = makeProof(`honest ${id} ${t.attempts}`, {count, interval, totalSteps})
          // A forced solver publishes a wrong proof; so does a cheater (one in five), sealing nothing useful.
          const cheat = !forced && a % 5 === 0
          const published = forced || cheat ? makeProof(`wrong ${id} ${t.attempts} ${a}`, {count, interval, totalSteps}) : honest
          const ok = await this.market(t.solver, 'commitProof', [id, published.root, published.manifest, count, interval, totalSteps, sealOf(honest, secret)])
          if (ok) this.proofs.set(id, {published, honest, forced})
          return
        }
        case Status.Committed: {
          if (head <= t.commitBlock + 1n) return void (await mine(1n))
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
              await this.market(wbs[c % 3]!, 'challenge', [
                id,
                segment,
                claim,
                p.checkpoints[segment]!,
                merkleProof(p.checkpoints, segment),
                p.checkpoints[segment + 1]!,
                merkleProof(p.checkpoints, segment + 1),
              ])
            } else if (choice <= 1) {
              const s = t.rejectSegment
              await this.market(t.solver, 'disputeRejection', [id, p.checkpoints[s]!, merkleProof(p.checkpoints, s), p.checkpoints[s + 1]!, merkleProof(p.checkpoints, s + 1)])
            } else {
              await mine(1n)
            }
            return
          }
          if (head < t.revealEndBlock) {
            const model = this.proofs.get(id)
            if (model?.forced && a % 4 !== 0) {
              await this.market(t.solver, 'revealForcedError', [id, this.secrets.get(id) ?? zeroHash, model.honest.root, model.honest.manifest])
            } else {
              await mine(t.revealEndBlock - head)
            }
            return
          }
          if (t.activeDispute !== 0n) return this.gameMove(id, t.activeDispute, head, a, b, c)
          await this.market(actors.other.address, 'settle', [id])
          return
        }
        default:
          await this.market(actors.other.address, c % 2 === 0 ? 'settle' : 'expire', [id])
      }
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
    return ctx.publicClient.readContract({address, abi, functionName, args} as never)
  }
})
