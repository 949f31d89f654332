import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'
import {
  type Address,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  parseEther,
  parseEventLogs,
  stringToHex,
  type TransactionReceipt,
  zeroAddress,
  zeroHash,
} from 'viem'
import {mnemonicToAccount, privateKeyToAccount} from 'viem/accounts'

import {createClients} from '../../src/chain/clients.js'
import {
  pinpointGameAbi,
  pinpointGameBytecode,
  protocolConfigAbi,
  protocolConfigBytecode,
  roleRegistryAbi,
} from '../../src/chain/generated/index.js'
import {selectBackend} from '../../src/ml/backend/selectBackend.js'
import {
  type Actor,
  checkInvariants,
  deployBareRegistry,
  DEV_MNEMONIC,
  expectDeployRevert,
  expectRevert,
  normalize,
  receiptOf,
  registryWrite,
  snapshotChain,
  useChain,
  write,
} from './helpers/chain.js'
import {
  buildTrace,
  closingCommitment,
  descriptorHash,
  float32Bytes,
  graphHash,
  initialCommitment,
  nextCommitment,
  type Operation,
  type Trace,
} from './helpers/pinpoint.js'

/** PinpointGame's enums, in declaration order. */
const Phase = {None: 0, Steps: 1, TraceHeader: 2, Operators: 3, Arbitration: 4, Committee: 5, Resolved: 6} as const
const Outcome = {None: 0, ProverWon: 1, ChallengerWon: 2, BothWrong: 3, Void: 4} as const
const Question = {None: 0, Graph: 1, StateAssembly: 2, Operator: 3} as const
const Resolution = {Timeout: 0, Arbitration: 1, Committee: 2, Void: 3} as const
const SOLVER = 1
const VERIFIER = 2
const WHISTLEBLOWER = 4
const ROUND = 10n
const COMMITTEE_ROUND = 20n
const TASK = 7n

type GameEvent = {eventName: string; args: Record<string, unknown>}

const label = (text: string): Hex => keccak256(stringToHex(text))

// ------------------------------------------------------------------ traces

const input = (shape: number[]): Operation => ({kernel: 'Input', inputs: [], inputShapes: [], outputShape: shape, outputDtype: 'float32', attrs: '0x'})
const op = (kernel: string, inputs: number[], inputShapes: number[][], outputShape: number[], attrs: Hex = '0x'): Operation => ({
  kernel,
  inputs,
  inputShapes,
  outputShape,
  outputDtype: 'float32',
  attrs,
})

/** Flips the lowest bit of the first float32 of `bytes`: one ulp off, the kind of error a wrong kernel makes. */
function perturb(bytes: Hex): Hex {
  const first = Number.parseInt(bytes.slice(2, 4), 16) ^ 1
  return `0x${first.toString(16).padStart(2, '0')}${bytes.slice(4)}` as Hex
}

/** A copy of `outputs` with element `j` (1-based) perturbed `times` times (different wrong values per count). */
function wrongAt(outputs: Hex[], j: number, salt = 1): Hex[] {
  return outputs.map((bytes, k) => {
    if (k !== j - 1) return bytes
    const view = Buffer.from(bytes.slice(2), 'hex')
    view[0] = view[0]! ^ salt
    return `0x${view.toString('hex')}` as Hex
  })
}

/** A chain Input[4] -> Neg -> Neg -> ... with m elements, outputs computed exactly (a sign flip). */
function negChain(m: number): {ops: Operation[]; outputs: Hex[]} {
  const x = [1.5, -2.25, 0.1, 3e-39]
  const ops = [input([4])]
  const outputs = [float32Bytes(Float32Array.from(x))]
  for (let j = 2; j <= m; j++) {
    ops.push(op('Neg', [j - 1], [[4]], [4]))
    outputs.push(float32Bytes(Float32Array.from(x.map((v) => (j % 2 === 0 ? -v : v)))))
  }
  return {ops, outputs}
}

/**
 * One dispute: the steps [start, end] with the parties agreeing on every state up to `step` (the disputed step
 * i) and disagreeing after it, and each party's operator trace of step i.
 */
type Scenario = {
  start: bigint
  end: bigint
  step: bigint
  openerIsProver: boolean
  proverTrace: Trace
  challengerTrace: Trace
}

const agreedState = (t: bigint) => label(`state ${t}`)
const stateOf = (s: Scenario, party: 'prover' | 'challenger', t: bigint) => (t <= s.step ? agreedState(t) : label(`${party} state ${t}`))

function scenario(options: {
  start?: bigint
  end?: bigint
  step?: bigint
  openerIsProver?: boolean
  ops?: Operation[]
  proverOutputs?: Hex[]
  challengerOutputs?: Hex[]
  challengerOps?: Operation[]
}): Scenario {
  const start = options.start ?? 100n
  const end = options.end ?? start + 8n
  const step = options.step ?? end - 1n
  const chain = negChain(4)
  const ops = options.ops ?? chain.ops
  const proverOutputs = options.proverOutputs ?? chain.outputs
  const challengerOutputs = options.challengerOutputs ?? wrongAt(proverOutputs, proverOutputs.length)
  return {
    start,
    end,
    step,
    openerIsProver: options.openerIsProver ?? false,
    proverTrace: buildTrace(agreedState(step), step, ops, proverOutputs),
    challengerTrace: buildTrace(agreedState(step), step, options.challengerOps ?? ops, challengerOutputs),
  }
}

// ------------------------------------------------------------------ the test file

describe('PinpointGame (on anvil)', function () {
  this.timeout(120_000)
  const ctx = useChain()
  let config: Address
  let game: Address
  /** Committee candidates beyond useChain's actors: x1..x3 staked verifiers, x4 an unstaked one, x5 a solver. */
  const extra = {} as Record<'x1' | 'x2' | 'x3' | 'x4' | 'x5', Actor>

  const prover = () => ctx.actors.solver
  const challenger = () => ctx.actors.other
  const opener = () => ctx.actors.marketEoa

  async function newActor(name: string, index: number): Promise<Actor> {
    const hd = mnemonicToAccount(DEV_MNEMONIC, {addressIndex: index})
    const key = `0x${Buffer.from(hd.getHdKey().privateKey!).toString('hex')}` as Hex
    const clients = await createClients({rpcUrl: ctx.anvil.rpcUrl, chainId: ctx.anvil.chainId, privateKey: key, pollingInterval: 20})
    await ctx.test.setBalance({address: clients.account.address, value: parseEther('100')})
    ctx.tracked.add(clients.account.address)
    return {name, address: clients.account.address, wallet: clients.walletClient}
  }

  async function deployGame(openerAddress: Address, registry: Address, configAddress: Address): Promise<Address> {
    const hash = await ctx.actors.deployer.wallet.deployContract({abi: pinpointGameAbi, bytecode: pinpointGameBytecode, args: [openerAddress, registry, configAddress]})
    const receipt = await receiptOf(ctx.publicClient, hash)
    assert.equal(receipt.status, 'success')
    return getAddress(receipt.contractAddress!)
  }

  before(async function () {
    this.timeout(60_000)
    for (const [k, name] of (['x1', 'x2', 'x3', 'x4', 'x5'] as const).entries()) extra[name] = await newActor(name, 8 + k)
    const hash = await ctx.actors.deployer.wallet.deployContract({abi: protocolConfigAbi, bytecode: protocolConfigBytecode, args: []})
    config = getAddress((await receiptOf(ctx.publicClient, hash)).contractAddress!)
    game = await deployGame(opener().address, ctx.system.registry, config)
    // Verifier list: verifier, verifier2 (useChain), solver, other, x1, x2, x3, x4.
    await registryWrite(ctx, prover(), 'register', [VERIFIER])
    await registryWrite(ctx, challenger(), 'register', [VERIFIER | WHISTLEBLOWER], {value: parseEther('5')})
    for (const name of ['x1', 'x2', 'x3'] as const) await registryWrite(ctx, extra[name], 'register', [VERIFIER], {value: parseEther('5')})
    await registryWrite(ctx, extra.x4, 'register', [VERIFIER], {value: parseEther('0.1')})
    await registryWrite(ctx, extra.x5, 'register', [SOLVER], {value: parseEther('5')})
  })

  // ---------------------------------------------------------------- chain access

  type Sent = {receipt: TransactionReceipt; events: GameEvent[]}

  async function send(actor: Actor, functionName: string, args: readonly unknown[], address: Address = game): Promise<Sent> {
    const {receipt} = await write(ctx, actor, address, pinpointGameAbi, functionName, args)
    assert.equal(receipt.status, 'success', `${functionName} reverted on chain`)
    const events = parseEventLogs({abi: pinpointGameAbi, logs: receipt.logs}).map((log) => ({
      eventName: log.eventName,
      args: log.args as unknown as Record<string, unknown>,
    }))
    return {receipt, events}
  }

  const read = <T>(functionName: string, args: readonly unknown[] = [], address: Address = game): Promise<T> =>
    ctx.publicClient.readContract({address, abi: pinpointGameAbi, functionName, args} as never) as Promise<T>

  type Header = {opCount: number; graphHash: Hex; finalCommitment: Hex}
  type DisputeView = {
    taskId: bigint
    prover: Address
    challenger: Address
    excluded: Address
    openerIsProver: boolean
    phase: number
    outcome: number
    question: number
    proverPosted: boolean
    challengerPosted: boolean
    rounds: number
    element: number
    deadline: bigint
    roundTimeoutBlocks: number
    committeeTimeoutBlocks: number
    startStep: bigint
    endStep: bigint
    lo: bigint
    hi: bigint
    step: bigint
    previousOfTask: bigint
    drawAnchor: bigint
    loHash: Hex
    proverHi: Hex
    challengerHi: Hex
    stateHash: Hex
    proverNext: Hex
    challengerNext: Hex
    proverPost: Hex
    challengerPost: Hex
    proverHeader: Header
    challengerHeader: Header
  }
  const dispute = (id: bigint, address: Address = game) => read<DisputeView>('getDispute', [id], address)
  const committeeOf = async (id: bigint, address: Address = game) => {
    const [members, votes] = await read<readonly [readonly Address[], readonly number[]]>('committeeOf', [id], address)
    return {members: members.map((m) => getAddress(m)), votes: [...votes]}
  }

  async function setParams(change: Record<string, unknown>): Promise<void> {
    const params = await ctx.publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'params'})
    await write(ctx, ctx.actors.deployer, config, protocolConfigAbi, 'setParams', [{...params, ...change}])
  }

  /** Draws a pending committee: mines the block its seed comes from, then anyone (the deployer) draws. */
  async function draw(id: bigint, address: Address = game): Promise<Sent> {
    const {drawAnchor} = await dispute(id, address)
    await mineUntilNext(drawAnchor + 2n)
    return send(ctx.actors.deployer, 'drawCommittee', [id], address)
  }

  /** Mines blocks until the next transaction lands in block `block`. */
  async function mineUntilNext(block: bigint): Promise<void> {
    const head = await ctx.publicClient.getBlockNumber({cacheTime: 0})
    if (block - 1n > head) await ctx.test.mine({blocks: Number(block - 1n - head)})
  }

  const byName = (events: GameEvent[], name: string) => events.filter((e) => e.eventName === name)
  function only(events: GameEvent[], name: string): Record<string, unknown> {
    const found = byName(events, name)
    assert.equal(found.length, 1, `expected one ${name}, got ${found.length} in ${events.map((e) => e.eventName).join(', ')}`)
    return normalize(found[0]!.args) as Record<string, unknown>
  }

  // ---------------------------------------------------------------- playing

  async function open(s: Scenario, options: {excluded?: Address; taskId?: bigint; address?: Address; parties?: [Actor, Actor]} = {}) {
    const [p, c] = options.parties ?? [prover(), challenger()]
    const sent = await send(
      opener(),
      'open',
      [
        options.taskId ?? TASK,
        p.address,
        c.address,
        s.openerIsProver,
        options.excluded ?? ctx.actors.verifier.address,
        s.start,
        s.end,
        agreedState(s.start),
        stateOf(s, 'prover', s.end),
        stateOf(s, 'challenger', s.end),
      ],
      options.address,
    )
    const id = only(sent.events, 'DisputeOpened').id as bigint
    return {id, sent}
  }

  /** Both parties post for the current round (or only `who`); returns the transactions. */
  async function postRound(id: bigint, s: Scenario, who: 'both' | 'prover' | 'challenger' = 'both', address: Address = game): Promise<Sent[]> {
    const d = await dispute(id, address)
    const sent: Sent[] = []
    const parties = who === 'both' ? (['prover', 'challenger'] as const) : ([who] as const)
    for (const party of parties) {
      const actor = party === 'prover' ? prover() : challenger()
      const trace = party === 'prover' ? s.proverTrace : s.challengerTrace
      const mid = (d.lo + d.hi) / 2n
      if (d.phase === Phase.Steps) sent.push(await send(actor, 'postState', [id, stateOf(s, party, mid)], address))
      else if (d.phase === Phase.TraceHeader) {
        sent.push(await send(actor, 'postTraceHeader', [id, trace.ops.length, trace.graphHash, trace.finalCommitment], address))
      } else if (d.phase === Phase.Operators) sent.push(await send(actor, 'postCommitment', [id, trace.commitments[Number(mid)]!], address))
      else throw new Error(`no posting round in phase ${d.phase}`)
    }
    return sent
  }

  /** Plays full rounds (both parties posting) until the dispute reaches `phase`. */
  async function playUntil(id: bigint, s: Scenario, phase: number, collect: Sent[] = [], address: Address = game): Promise<Sent[]> {
    for (;;) {
      const d = await dispute(id, address)
      if (d.phase === phase) return collect
      assert.ok(d.phase >= Phase.Steps && d.phase <= Phase.Operators, `dispute ${id} is in phase ${d.phase}, cannot reach ${phase}`)
      collect.push(...(await postRound(id, s, 'both', address)))
    }
  }

  /** The arbitration data for the agreed trace's element j. */
  function arbitration(trace: Trace, j: number): [Operation, Hex[], Hex[], Hex[]] {
    const operation = trace.ops[j - 1]!
    return [operation, trace.descriptorHashes, trace.outputHashes.slice(0, j - 1), operation.inputs.map((e) => trace.outputs[e - 1]!)]
  }

  /** Anyone (here the deployer) arbitrates the disputed element with the agreed data of `trace`. */
  async function arbitrate(id: bigint, trace: Trace, address: Address = game): Promise<Sent> {
    const {element} = await dispute(id, address)
    return send(ctx.actors.deployer, 'arbitrate', [id, ...arbitration(trace, element)], address)
  }

  async function expectResolved(id: bigint, outcome: number, reason: number, events: GameEvent[]): Promise<void> {
    const resolved = only(events, 'DisputeResolved')
    const d = await dispute(id)
    assert.deepEqual(resolved, {id, outcome, rounds: d.rounds, reason})
    assert.equal(d.phase, Phase.Resolved)
    assert.equal(d.outcome, outcome)
    assert.equal(await read('outcomeOf', [id]), outcome)
  }

  // ================================================================ deployment and open

  describe('deployment and open', () => {
    it('refuses a zero opener, registry or config', async () => {
      const {deployer} = ctx.actors
      const valid = [opener().address, ctx.system.registry, config] as const
      for (let k = 0; k < 3; k++) {
        const args = valid.map((a, i) => (i === k ? zeroAddress : a)) as unknown as readonly [Address, Address, Address]
        await expectDeployRevert(deployer.wallet.deployContract({abi: pinpointGameAbi, bytecode: pinpointGameBytecode, args}), pinpointGameAbi, 'ZeroAddress')
      }
    })

    it('exposes its opener, registry, config and constants; no dispute yet', async () => {
      assert.equal(getAddress(await read<Address>('opener')), opener().address)
      assert.equal(getAddress(await read<Address>('registry')), getAddress(ctx.system.registry))
      assert.equal(getAddress(await read<Address>('config')), config)
      assert.equal(await read('disputeCount'), 0n)
      assert.deepEqual(await read('disputesOfTask', [TASK]), [])
      assert.equal(await read('MAX_DRAW_WALK'), 64n)
      assert.equal(await read('outcomeOf', [1n]), Outcome.None)
      await expectRevert(dispute(1n), 'DisputeNotFound', [1n])
      await expectRevert(read('currentIndex', [1n]), 'DisputeNotFound', [1n])
      assert.deepEqual(await committeeOf(1n), {members: [], votes: []})
    })

    it('only the opener opens a dispute', async () => {
      const s = scenario({})
      for (const actor of [prover(), challenger(), ctx.actors.deployer]) {
        await expectRevert(
          write(ctx, actor, game, pinpointGameAbi, 'open', [TASK, prover().address, challenger().address, false, zeroAddress, 0n, 8n, agreedState(0n), stateOf(s, 'prover', 8n), stateOf(s, 'challenger', 8n)]),
          'NotOpener',
          [actor.address],
        )
      }
    })

    it('open checks its parties, step range and hashes', async () => {
      const p = prover().address
      const c = challenger().address
      const [a, b, z] = [label('a'), label('b'), label('c')]
      const cases: [readonly unknown[], string, readonly unknown[]][] = [
        [[TASK, zeroAddress, c, false, zeroAddress, 0n, 2n, a, b, z], 'ZeroAddress', []],
        [[TASK, p, zeroAddress, false, zeroAddress, 0n, 2n, a, b, z], 'ZeroAddress', []],
        [[TASK, p, p, false, zeroAddress, 0n, 2n, a, b, z], 'InvalidParties', [p, p]],
        [[TASK, p, c, false, zeroAddress, 5n, 5n, a, b, z], 'InvalidStepRange', [5n, 5n]],
        [[TASK, p, c, false, zeroAddress, 6n, 5n, a, b, z], 'InvalidStepRange', [6n, 5n]],
        [[TASK, p, c, false, zeroAddress, 0n, 2n, zeroHash, b, z], 'ZeroHash', []],
        [[TASK, p, c, false, zeroAddress, 0n, 2n, a, zeroHash, z], 'ZeroHash', []],
        [[TASK, p, c, false, zeroAddress, 0n, 2n, a, b, zeroHash], 'ZeroHash', []],
        [[TASK, p, c, false, zeroAddress, 0n, 2n, a, b, b], 'NoDisagreement', [b]],
      ]
      for (const [args, error, errorArgs] of cases) await expectRevert(write(ctx, opener(), game, pinpointGameAbi, 'open', args), error, errorArgs)
    })

    it('opens a Steps round at the middle step with a deadline; ids count from 1 per game and are listed per task', async () => {
      const s = scenario({start: 100n, end: 108n, openerIsProver: true})
      const {id, sent} = await open(s)
      const block = sent.receipt.blockNumber
      assert.equal(id, 1n)
      assert.deepEqual(
        sent.events.map((e) => e.eventName),
        ['DisputeOpened', 'RoundOpened'],
      )
      assert.deepEqual(only(sent.events, 'DisputeOpened'), {
        id: 1n,
        taskId: TASK,
        prover: prover().address,
        challenger: challenger().address,
        openerIsProver: true,
        excluded: ctx.actors.verifier.address,
        startStep: 100n,
        endStep: 108n,
        startHash: agreedState(100n),
        proverEndHash: stateOf(s, 'prover', 108n),
        challengerEndHash: stateOf(s, 'challenger', 108n),
      })
      assert.deepEqual(only(sent.events, 'RoundOpened'), {id: 1n, phase: Phase.Steps, index: 104n, deadline: block + ROUND})
      const d = await dispute(id)
      assert.equal(d.taskId, TASK)
      assert.equal(getAddress(d.prover), prover().address)
      assert.equal(getAddress(d.challenger), challenger().address)
      assert.equal(getAddress(d.excluded), ctx.actors.verifier.address)
      assert.equal(d.openerIsProver, true)
      assert.equal(d.phase, Phase.Steps)
      assert.equal(d.outcome, Outcome.None)
      assert.deepEqual([d.startStep, d.endStep, d.lo, d.hi], [100n, 108n, 100n, 108n])
      assert.deepEqual([d.loHash, d.proverHi, d.challengerHi], [agreedState(100n), stateOf(s, 'prover', 108n), stateOf(s, 'challenger', 108n)])
      assert.deepEqual([d.deadline, d.roundTimeoutBlocks, d.committeeTimeoutBlocks, d.rounds], [block + ROUND, Number(ROUND), Number(COMMITTEE_ROUND), 0])
      assert.deepEqual([d.proverPosted, d.challengerPosted, d.proverPost, d.challengerPost], [false, false, zeroHash, zeroHash])
      assert.equal(await read('currentIndex', [id]), 104n)
      assert.equal(await read('outcomeOf', [id]), Outcome.None)

      const second = await open(scenario({start: 0n, end: 4n}))
      const other = await open(scenario({start: 0n, end: 4n}), {taskId: 8n})
      assert.deepEqual([second.id, other.id], [2n, 3n])
      const third = await open(scenario({start: 0n, end: 4n}))
      assert.equal(await read('disputeCount'), 4n)
      assert.deepEqual(await read('disputesOfTask', [TASK]), [1n, 2n, 4n])
      assert.deepEqual(await read('disputesOfTask', [8n]), [3n])
      assert.deepEqual(await read('disputesOfTask', [9n]), [])
      assert.deepEqual(
        await Promise.all([id, second.id, other.id, third.id].map(async (x) => (await dispute(x)).previousOfTask)),
        [0n, 1n, 0n, 2n],
      )
    })

    it('a dispute over one step skips the bisection: straight to TraceHeader', async () => {
      const s = scenario({start: 41n, end: 42n})
      const {id, sent} = await open(s)
      assert.deepEqual(
        sent.events.map((e) => e.eventName),
        ['DisputeOpened', 'StepIsolated', 'RoundOpened'],
      )
      assert.deepEqual(only(sent.events, 'StepIsolated'), {
        id,
        step: 41n,
        stateHash: agreedState(41n),
        proverNext: stateOf(s, 'prover', 42n),
        challengerNext: stateOf(s, 'challenger', 42n),
      })
      assert.deepEqual(only(sent.events, 'RoundOpened'), {id, phase: Phase.TraceHeader, index: 41n, deadline: sent.receipt.blockNumber + ROUND})
      const d = await dispute(id)
      assert.deepEqual([d.phase, d.step, d.stateHash, d.proverNext, d.challengerNext], [Phase.TraceHeader, 41n, agreedState(41n), stateOf(s, 'prover', 42n), stateOf(s, 'challenger', 42n)])
      assert.equal(await read('currentIndex', [id]), 41n)
      assert.equal(d.rounds, 0)
    })
  })

  // ================================================================ Steps

  describe('Steps', () => {
    it('bisects: an agreed mid moves lo up, a disputed one moves hi down, down to the disputed step', async () => {
      // Disputed step 102 of [100, 108]: mid 104 disputed, 102 agreed, 103 disputed -> step 102.
      const s = scenario({start: 100n, end: 108n, step: 102n})
      const {id} = await open(s)
      const expectations = [
        {mid: 104n, agreed: false, lo: 100n, hi: 104n},
        {mid: 102n, agreed: true, lo: 102n, hi: 104n},
        {mid: 103n, agreed: false, lo: 102n, hi: 103n},
      ]
      for (const [k, want] of expectations.entries()) {
        assert.equal(await read('currentIndex', [id]), want.mid)
        const [first, second] = await postRound(id, s)
        assert.deepEqual(only(first!.events, 'StatePosted'), {id, party: prover().address, round: k + 1, mid: want.mid, stateHash: stateOf(s, 'prover', want.mid)})
        assert.deepEqual(
          first!.events.map((e) => e.eventName),
          ['StatePosted'],
        )
        assert.deepEqual(only(second!.events, 'StatePosted'), {id, party: challenger().address, round: k + 1, mid: want.mid, stateHash: stateOf(s, 'challenger', want.mid)})
        assert.deepEqual(only(second!.events, 'StepsNarrowed'), {id, round: k + 1, ...want})
        const d = await dispute(id)
        assert.deepEqual([d.lo, d.hi, d.rounds], [want.lo, want.hi, k + 1])
        if (k < expectations.length - 1) {
          assert.deepEqual(only(second!.events, 'RoundOpened'), {id, phase: Phase.Steps, index: (want.lo + want.hi) / 2n, deadline: second!.receipt.blockNumber + ROUND})
          assert.equal(d.deadline, second!.receipt.blockNumber + ROUND)
        } else {
          assert.deepEqual(only(second!.events, 'StepIsolated'), {id, step: 102n, stateHash: agreedState(102n), proverNext: stateOf(s, 'prover', 103n), challengerNext: stateOf(s, 'challenger', 103n)})
          assert.deepEqual(only(second!.events, 'RoundOpened'), {id, phase: Phase.TraceHeader, index: 102n, deadline: second!.receipt.blockNumber + ROUND})
          assert.deepEqual([d.phase, d.step, d.stateHash, d.proverNext, d.challengerNext], [Phase.TraceHeader, 102n, agreedState(102n), stateOf(s, 'prover', 103n), stateOf(s, 'challenger', 103n)])
        }
      }
    })

    it('shows the first post of a round until the round completes', async () => {
      const s = scenario({})
      const {id} = await open(s)
      await postRound(id, s, 'challenger')
      let d = await dispute(id)
      assert.deepEqual([d.proverPosted, d.challengerPosted, d.proverPost, d.challengerPost], [false, true, zeroHash, stateOf(s, 'challenger', 104n)])
      await postRound(id, s, 'prover')
      d = await dispute(id)
      assert.deepEqual([d.proverPosted, d.challengerPosted, d.proverPost, d.challengerPost], [false, false, zeroHash, zeroHash])
    })

    it('reverts a post by a non-party, a zero hash, a second post, a post for an unknown dispute or in another phase', async () => {
      const s = scenario({})
      const {id} = await open(s)
      const post = (actor: Actor, hash: Hex, disputeId = id) => write(ctx, actor, game, pinpointGameAbi, 'postState', [disputeId, hash])
      for (const actor of [ctx.actors.deployer, opener(), ctx.actors.verifier]) await expectRevert(post(actor, label('x')), 'NotParty', [id, actor.address])
      await expectRevert(post(prover(), zeroHash), 'ZeroHash', [])
      await expectRevert(post(prover(), label('x'), 9n), 'DisputeNotFound', [9n])
      await post(prover(), label('x'))
      await expectRevert(post(prover(), label('y')), 'AlreadyPosted', [id, prover().address])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postTraceHeader', [id, 1, label('g'), label('f')]), 'WrongPhase', [id, Phase.Steps])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postCommitment', [id, label('c')]), 'WrongPhase', [id, Phase.Steps])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'arbitrate', [id, input([1]), [], [], []]), 'WrongPhase', [id, Phase.Steps])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'escalate', [id]), 'WrongPhase', [id, Phase.Steps])
      await expectRevert(write(ctx, ctx.actors.verifier2, game, pinpointGameAbi, 'vote', [id, 1]), 'WrongPhase', [id, Phase.Steps])
      const one = await open(scenario({start: 0n, end: 1n}))
      await expectRevert(post(prover(), label('x'), one.id), 'WrongPhase', [one.id, Phase.TraceHeader])
    })

    it('a post is in time up to the deadline block, and late after it', async () => {
      const s = scenario({})
      const {id} = await open(s)
      const {deadline} = await dispute(id)
      await mineUntilNext(deadline)
      const [posted] = await postRound(id, s, 'prover')
      assert.equal(posted!.receipt.blockNumber, deadline)
      await expectRevert(write(ctx, challenger(), game, pinpointGameAbi, 'postState', [id, label('late')]), 'DeadlinePassed', [id, deadline])
    })
  })

  // ================================================================ TraceHeader

  describe('TraceHeader', () => {
    it('equal headers open the operator bisection over 0 .. opCount + 1 with c_0 agreed and c_{m+1} disputed', async () => {
      const s = scenario({start: 0n, end: 1n, step: 0n})
      const {id} = await open(s)
      const [first, second] = await postRound(id, s)
      const m = s.proverTrace.ops.length
      assert.deepEqual(only(first!.events, 'TraceHeaderPosted'), {id, party: prover().address, opCount: m, graphHash: s.proverTrace.graphHash, finalCommitment: s.proverTrace.finalCommitment})
      assert.deepEqual(
        first!.events.map((e) => e.eventName),
        ['TraceHeaderPosted'],
      )
      let d = await dispute(id)
      // Until the round completes only the poster's header shows.
      const c = s.challengerTrace
      assert.deepEqual(only(second!.events, 'TraceHeaderPosted'), {id, party: challenger().address, opCount: m, graphHash: c.graphHash, finalCommitment: c.finalCommitment})
      const mid = BigInt(Math.floor((m + 1) / 2))
      assert.deepEqual(only(second!.events, 'RoundOpened'), {id, phase: Phase.Operators, index: mid, deadline: second!.receipt.blockNumber + ROUND})
      d = await dispute(id)
      assert.equal(d.phase, Phase.Operators)
      assert.deepEqual([d.lo, d.hi, d.rounds], [0n, BigInt(m + 1), 1])
      assert.equal(d.loHash, initialCommitment(agreedState(0n), 0n))
      assert.equal(d.loHash, s.proverTrace.commitments[0])
      assert.equal(d.proverHi, closingCommitment(s.proverTrace.finalCommitment, stateOf(s, 'prover', 1n)))
      assert.equal(d.challengerHi, closingCommitment(c.finalCommitment, stateOf(s, 'challenger', 1n)))
      assert.deepEqual(d.proverHeader, {opCount: m, graphHash: s.proverTrace.graphHash, finalCommitment: s.proverTrace.finalCommitment})
      assert.deepEqual(d.challengerHeader, {opCount: m, graphHash: c.graphHash, finalCommitment: c.finalCommitment})
      assert.equal(await read('currentIndex', [id]), mid)
    })

    it('hides a header until posted', async () => {
      const s = scenario({start: 0n, end: 1n, step: 0n})
      const {id} = await open(s)
      await postRound(id, s, 'challenger')
      const d = await dispute(id)
      assert.deepEqual([d.proverPosted, d.challengerPosted], [false, true])
      assert.deepEqual(d.proverHeader, {opCount: 0, graphHash: zeroHash, finalCommitment: zeroHash})
      assert.deepEqual(d.challengerHeader, {opCount: 4, graphHash: s.challengerTrace.graphHash, finalCommitment: s.challengerTrace.finalCommitment})
    })

    for (const difference of ['opCount', 'graphHash'] as const) {
      it(`a different ${difference} sends the graph to the committee`, async () => {
        const chain = negChain(4)
        const other = difference === 'opCount' ? negChain(5) : {ops: [...chain.ops.slice(0, 3), op('Relu', [3], [[4]], [4])], outputs: chain.outputs}
        const s = scenario({start: 0n, end: 1n, step: 0n, ops: chain.ops, proverOutputs: chain.outputs, challengerOps: other.ops, challengerOutputs: other.outputs})
        const {id} = await open(s)
        const [, second] = await postRound(id, s)
        const opened = only(second!.events, 'CommitteeOpened')
        assert.deepEqual(opened, {id, question: Question.Graph, element: 0, anchor: second!.receipt.blockNumber})
        const d = await dispute(id)
        assert.deepEqual([d.phase, d.question, d.element, d.rounds, d.drawAnchor], [Phase.Committee, Question.Graph, 0, 1, second!.receipt.blockNumber])
        assert.equal(d.deadline, second!.receipt.blockNumber + 1n + COMMITTEE_ROUND)
        assert.equal(await read('currentIndex', [id]), 0n)
      })
    }

    it('reverts an inconsistent header, a zero final commitment, a second post and a non-party', async () => {
      const s = scenario({start: 0n, end: 1n, step: 0n})
      const {id} = await open(s)
      const post = (actor: Actor, opCount: number, g: Hex, f: Hex) => write(ctx, actor, game, pinpointGameAbi, 'postTraceHeader', [id, opCount, g, f])
      await expectRevert(post(prover(), 0, label('g'), label('f')), 'InvalidTraceHeader', [0, label('g')])
      await expectRevert(post(prover(), 3, zeroHash, label('f')), 'InvalidTraceHeader', [3, zeroHash])
      await expectRevert(post(prover(), 3, label('g'), zeroHash), 'ZeroHash', [])
      await expectRevert(post(ctx.actors.verifier, 3, label('g'), label('f')), 'NotParty', [id, ctx.actors.verifier.address])
      await post(challenger(), 3, label('g'), label('f'))
      await expectRevert(post(challenger(), 3, label('g'), label('f')), 'AlreadyPosted', [id, challenger().address])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postState', [id, label('s')]), 'WrongPhase', [id, Phase.TraceHeader])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postCommitment', [id, label('s')]), 'WrongPhase', [id, Phase.TraceHeader])
      const {deadline} = await dispute(id)
      await mineUntilNext(deadline + 1n)
      await expectRevert(post(prover(), 3, label('g'), label('f')), 'DeadlinePassed', [id, deadline])
    })

    it('a step with no operators (opCount 0): both agree on the empty trace, so the state assembly goes to the committee', async () => {
      const s = scenario({start: 0n, end: 1n, step: 0n, ops: [], proverOutputs: [], challengerOutputs: []})
      assert.equal(s.proverTrace.graphHash, zeroHash)
      assert.equal(s.proverTrace.finalCommitment, initialCommitment(agreedState(0n), 0n))
      const {id} = await open(s)
      const [, second] = await postRound(id, s)
      const opened = only(second!.events, 'CommitteeOpened')
      assert.deepEqual([opened.question, opened.element], [Question.StateAssembly, 1])
      const d = await dispute(id)
      assert.deepEqual([d.phase, d.question, d.element, d.lo, d.hi, d.rounds], [Phase.Committee, Question.StateAssembly, 1, 0n, 1n, 1])
    })
  })

  // ================================================================ Operators

  describe('Operators', () => {
    it('bisects the commitments down to the first disputed element and opens its arbitration', async () => {
      // 7 elements, the challenger wrong from element 3 on: mids 4 (disputed), 2 (agreed), 3 (disputed) -> j = 3.
      const chain = negChain(7)
      const s = scenario({start: 0n, end: 1n, step: 0n, ops: chain.ops, proverOutputs: chain.outputs, challengerOutputs: wrongAt(chain.outputs, 3)})
      const {id} = await open(s)
      await postRound(id, s)
      const expectations = [
        {mid: 4n, agreed: false, lo: 0n, hi: 4n},
        {mid: 2n, agreed: true, lo: 2n, hi: 4n},
        {mid: 3n, agreed: false, lo: 2n, hi: 3n},
      ]
      for (const [k, want] of expectations.entries()) {
        assert.equal(await read('currentIndex', [id]), want.mid)
        const [first, second] = await postRound(id, s)
        assert.deepEqual(only(first!.events, 'CommitmentPosted'), {id, party: prover().address, round: k + 2, mid: want.mid, commitment: s.proverTrace.commitments[Number(want.mid)]})
        assert.deepEqual(only(second!.events, 'OperatorsNarrowed'), {id, round: k + 2, ...want})
        if (k === expectations.length - 1) {
          assert.deepEqual(only(second!.events, 'ArbitrationReady'), {id, element: 3, deadline: second!.receipt.blockNumber + ROUND})
        }
      }
      const d = await dispute(id)
      assert.deepEqual([d.phase, d.element, d.lo, d.hi, d.rounds], [Phase.Arbitration, 3, 2n, 3n, 4])
      assert.equal(d.loHash, s.proverTrace.commitments[2])
      assert.equal(d.proverHi, s.proverTrace.commitments[3])
      assert.equal(d.challengerHi, s.challengerTrace.commitments[3])
      assert.equal(await read('currentIndex', [id]), 3n)
    })

    it('every operator output agreed but S_{i+1} disputed: the state assembly goes to the committee', async () => {
      const chain = negChain(5)
      const s = scenario({start: 0n, end: 1n, step: 0n, ops: chain.ops, proverOutputs: chain.outputs, challengerOutputs: chain.outputs})
      const {id} = await open(s)
      const sent = await playUntil(id, s, Phase.Committee)
      const opened = only(sent.at(-1)!.events, 'CommitteeOpened')
      assert.deepEqual([opened.question, opened.element], [Question.StateAssembly, 6])
      const d = await dispute(id)
      assert.deepEqual([d.lo, d.hi, d.element, d.question], [5n, 6n, 6, Question.StateAssembly])
      assert.equal(await read('currentIndex', [id]), 6n)
    })

    it('reverts a zero commitment, a second post, a non-party and a late post', async () => {
      const s = scenario({start: 0n, end: 1n, step: 0n})
      const {id} = await open(s)
      await postRound(id, s)
      const post = (actor: Actor, c: Hex) => write(ctx, actor, game, pinpointGameAbi, 'postCommitment', [id, c])
      await expectRevert(post(prover(), zeroHash), 'ZeroHash', [])
      await expectRevert(post(extra.x1, label('c')), 'NotParty', [id, extra.x1.address])
      await post(prover(), label('c'))
      await expectRevert(post(prover(), label('c')), 'AlreadyPosted', [id, prover().address])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postState', [id, label('s')]), 'WrongPhase', [id, Phase.Operators])
      const {deadline} = await dispute(id)
      await mineUntilNext(deadline + 1n)
      await expectRevert(post(challenger(), label('c')), 'DeadlinePassed', [id, deadline])
    })
  })

  // ================================================================ timeouts

  describe('timeouts', () => {
    const kinds = [
      {phase: Phase.Steps, name: 'Steps', s: () => scenario({})},
      {phase: Phase.TraceHeader, name: 'TraceHeader', s: () => scenario({start: 10n, end: 12n})},
      {phase: Phase.Operators, name: 'Operators', s: () => scenario({start: 10n, end: 12n})},
    ]
    const cases = [
      // The poster wins even where the opener-loses rule would say otherwise.
      {who: 'prover', openerIsProver: true, outcome: Outcome.ProverWon, title: 'the prover posted, the challenger did not: ProverWon'},
      {who: 'challenger', openerIsProver: false, outcome: Outcome.ChallengerWon, title: 'the challenger posted, the prover did not: ChallengerWon'},
      {who: 'none', openerIsProver: true, outcome: Outcome.ChallengerWon, title: 'neither posted and the prover opened: the prover loses'},
      {who: 'none', openerIsProver: false, outcome: Outcome.ProverWon, title: 'neither posted and the challenger opened: the challenger loses'},
    ] as const
    for (const kind of kinds) {
      describe(`in ${kind.name}`, () => {
        for (const c of cases) {
          it(c.title, async () => {
            const s = {...kind.s(), openerIsProver: c.openerIsProver}
            const {id} = await open(s)
            const played = await playUntil(id, s, kind.phase)
            if (c.who !== 'none') await postRound(id, s, c.who)
            const before = await dispute(id)
            assert.equal(before.phase, kind.phase)
            await mineUntilNext(before.deadline)
            await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'timeout', [id]), 'DeadlineNotReached', [id, before.deadline])
            await ctx.test.mine({blocks: 1})
            const sent = await send(ctx.actors.deployer, 'timeout', [id])
            assert.deepEqual(only(sent.events, 'TimedOut'), {id, phase: kind.phase})
            await expectResolved(id, c.outcome, Resolution.Timeout, sent.events)
            const completed = played.length / 2
            assert.equal((await dispute(id)).rounds, completed)
            await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'timeout', [id]), 'WrongPhase', [id, Phase.Resolved])
          })
        }
      })
    }

    it('a resolved dispute takes no more posts; timeout of an unknown dispute reverts', async () => {
      const s = scenario({})
      const {id} = await open(s)
      await mineUntilNext((await dispute(id)).deadline + 1n)
      await send(ctx.actors.deployer, 'timeout', [id])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postState', [id, label('s')]), 'WrongPhase', [id, Phase.Resolved])
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'timeout', [99n]), 'DisputeNotFound', [99n])
      assert.equal(await read('currentIndex', [id]), 0n)
    })

    it('an Arbitration timeout sends the element to the committee', async () => {
      const s = scenario({start: 0n, end: 1n, step: 0n})
      const {id} = await open(s)
      await playUntil(id, s, Phase.Arbitration)
      const {deadline, element, rounds} = await dispute(id)
      await mineUntilNext(deadline)
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'timeout', [id]), 'DeadlineNotReached', [id, deadline])
      await ctx.test.mine({blocks: 1})
      const sent = await send(ctx.actors.deployer, 'timeout', [id])
      assert.deepEqual(
        sent.events.map((e) => e.eventName),
        ['TimedOut', 'CommitteeOpened'],
      )
      const opened = only(sent.events, 'CommitteeOpened')
      assert.deepEqual([opened.question, opened.element, opened.anchor], [Question.Operator, element, sent.receipt.blockNumber])
      assert.equal((await dispute(id)).deadline, sent.receipt.blockNumber + 1n + COMMITTEE_ROUND)
      const d = await dispute(id)
      assert.deepEqual([d.phase, d.question, d.element, d.rounds, d.outcome], [Phase.Committee, Question.Operator, element, rounds, Outcome.None])
    })
  })

  // ================================================================ committee

  describe('committee', () => {
    /** A dispute whose committee (question Graph) the second header post opened; `sent` is the draw. */
    async function toCommittee(options: {excluded?: Address} = {}): Promise<{id: bigint; sent: Sent}> {
      const id = await toOpenCommittee(options)
      return {id, sent: await draw(id)}
    }

    /** A dispute whose committee the second header post opened and nobody has drawn yet. */
    async function toOpenCommittee(options: {excluded?: Address; address?: Address} = {}): Promise<bigint> {
      const chain = negChain(4)
      const other = negChain(5)
      const s = scenario({start: 0n, end: 1n, step: 0n, ops: chain.ops, proverOutputs: chain.outputs, challengerOps: other.ops, challengerOutputs: other.outputs})
      const {id} = await open(s, options)
      await postRound(id, s, 'prover', options.address)
      await postRound(id, s, 'challenger', options.address)
      return id
    }

    /**
     * The draw of docs/disputes.md, in TypeScript: who the committee must be for this seed (the hash of the block
     * after the anchor). The walk starts at seed % count; each seat is drawn by weight (free stake).
     */
    async function predictCommittee(id: bigint, seed: Hex, excluded: Address[], registry: Address = ctx.system.registry): Promise<Address[]> {
      const params = await ctx.publicClient.readContract({address: config, abi: protocolConfigAbi, functionName: 'params'})
      const count = await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'verifierCount'})
      const candidates: Address[] = []
      const weights: bigint[] = []
      const start = BigInt(seed) % count
      const walk = count < 64n ? count : 64n
      for (let k = 0n; k < walk; k++) {
        const account = getAddress(await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'verifierAt', args: [(start + k) % count]}))
        if (excluded.includes(account)) continue
        if (!(await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'hasRoles', args: [account, VERIFIER]}))) continue
        const [free] = await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'stakeOf', args: [account]})
        if (free < params.verifierStake || free === 0n) continue
        candidates.push(account)
        weights.push(free)
      }
      let total = weights.reduce((sum, weight) => sum + weight, 0n)
      const members: Address[] = []
      for (let k = 0n; k < BigInt(Math.min(params.committeeSize, candidates.length)); k++) {
        let r = BigInt(keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'uint256'}, {type: 'uint256'}], [seed, id, k]))) % total
        let c = 0
        while (r >= weights[c]!) r -= weights[c++]!
        members.push(candidates[c]!)
        total -= weights[c]!
        weights[c] = 0n
      }
      return members
    }

    it('draws only staked verifiers outside the dispute: never a party, the excluded account, an unstaked verifier or a non-verifier', async () => {
      await setParams({committeeSize: 8})
      const {id, sent} = await toCommittee()
      const {members} = await committeeOf(id)
      const eligible = [ctx.actors.verifier2, extra.x1, extra.x2, extra.x3].map((a) => a.address)
      assert.deepEqual([...members].sort(), [...eligible].sort())
      assert.deepEqual(only(sent.events, 'CommitteeDrawn').members, members)
      assert.deepEqual((await committeeOf(id)).votes, [0, 0, 0, 0])
    })

    it('draws from blockhash(anchor + 1), by stake, the same whichever later block the draw is sent in', async () => {
      const parties = [prover().address, challenger().address, ctx.actors.verifier.address]
      for (let attempt = 0; attempt < 3; attempt++) {
        const id = await toOpenCommittee()
        const {drawAnchor} = await dispute(id)
        await ctx.test.mine({blocks: attempt + 1})
        const seed = (await ctx.publicClient.getBlock({blockNumber: drawAnchor + 1n})).hash
        const expected = await predictCommittee(id, seed, parties)
        const sent = await send(ctx.actors.deployer, 'drawCommittee', [id])
        assert.equal(expected.length, 3)
        assert.deepEqual((await committeeOf(id)).members, expected)
        assert.deepEqual(only(sent.events, 'CommitteeDrawn').deadline, sent.receipt.blockNumber + COMMITTEE_ROUND)
        assert.equal((await dispute(id)).drawAnchor, 0n)
      }
    })

    it('looks at no more than 64 entries of the verifier list', async function () {
      this.timeout(180_000)
      // A bare registry whose 70 listed verifiers hold the listing minimum (0.1 ether), below the verifier stake a
      // committee seat needs, except four at the end (indices 66..69).
      const registry = await deployBareRegistry(ctx, {market: ctx.actors.marketEoa, minimumVerifierStake: parseEther('0.1')})
      const bare = await deployGame(opener().address, registry, config)
      for (let k = 0; k < 66; k++) {
        const account = privateKeyToAccount(label(`filler ${k}`))
        await ctx.test.setBalance({address: account.address, value: parseEther('1')})
        const clients = await createClients({rpcUrl: ctx.anvil.rpcUrl, chainId: ctx.anvil.chainId, privateKey: label(`filler ${k}`), pollingInterval: 10})
        ctx.tracked.add(account.address)
        const hash = await clients.walletClient.writeContract({address: registry, abi: roleRegistryAbi, functionName: 'register', args: [VERIFIER], value: parseEther('0.1')})
        await receiptOf(ctx.publicClient, hash)
      }
      const staked = [ctx.actors.verifier2, extra.x1, extra.x2, extra.x3]
      for (const actor of staked) await registryWrite(ctx, actor, 'register', [VERIFIER], {value: parseEther('1'), address: registry})
      assert.equal(await ctx.publicClient.readContract({address: registry, abi: roleRegistryAbi, functionName: 'verifierCount'}), 70n)
      await checkInvariants(ctx)

      // Waiting for a suitable seed can take more blocks than the default round timeout.
      await setParams({roundTimeoutBlocks: 100_000, committeeTimeoutBlocks: 100_000})
      const id = await toOpenCommittee({address: bare})
      const {drawAnchor} = await dispute(id, bare)
      // Re-mine block anchor + 1 (rolled back, another timestamp) until the draw's window (start .. start + 63, mod
      // 70) leaves out some staked verifier but not all.
      const countIn = (start: bigint) => [66n, 67n, 68n, 69n].filter((index) => (index - start + 70n) % 70n < 64n).length
      const {timestamp} = await ctx.publicClient.getBlock()
      for (let attempt = 1n; ; attempt++) {
        const rollBack = await snapshotChain(ctx)
        await ctx.test.setNextBlockTimestamp({timestamp: timestamp + attempt})
        await ctx.test.mine({blocks: 1})
        const seed = (await ctx.publicClient.getBlock({blockNumber: drawAnchor + 1n})).hash
        const inWindow = countIn(BigInt(seed) % 70n)
        if (inWindow > 0 && inWindow < 4) {
          const expected = await predictCommittee(id, seed, [prover().address, challenger().address, ctx.actors.verifier.address], registry)
          assert.equal(expected.length, Math.min(3, inWindow))
          await send(ctx.actors.deployer, 'drawCommittee', [id], bare)
          assert.deepEqual((await committeeOf(id, bare)).members, expected)
          return
        }
        await rollBack()
      }
    })

    it('drawCommittee: not before the block after the anchor, once, only in Committee; nobody votes before the draw', async () => {
      const opening = negChain(4)
      const s = scenario({start: 0n, end: 1n, step: 0n, ops: opening.ops, proverOutputs: opening.outputs, challengerOps: negChain(5).ops, challengerOutputs: negChain(5).outputs})
      const {id} = await open(s)
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'drawCommittee', [id]), 'WrongPhase', [id, Phase.TraceHeader])
      await postRound(id, s)
      const {drawAnchor} = await dispute(id)
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'drawCommittee', [id]), 'CommitteeNotDrawn', [id, drawAnchor + 2n])
      await expectRevert(write(ctx, extra.x1, game, pinpointGameAbi, 'vote', [id, 1]), 'CommitteeNotDrawn', [id, drawAnchor + 2n])
      await draw(id)
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'drawCommittee', [id]), 'CommitteeAlreadyDrawn', [id])
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'drawCommittee', [99n]), 'DisputeNotFound', [99n])
    })

    it('a draw left past the 256-block window re-anchors to its own block instead of using a hash someone could pick', async () => {
      await setParams({committeeTimeoutBlocks: 100_000})
      const id = await toOpenCommittee()
      const {drawAnchor} = await dispute(id)
      await ctx.test.mine({blocks: 300})
      const late = await send(ctx.actors.deployer, 'drawCommittee', [id])
      assert.deepEqual(only(late.events, 'CommitteeOpened'), {id, question: Question.Graph, element: 0, anchor: late.receipt.blockNumber})
      assert.equal(byName(late.events, 'CommitteeDrawn').length, 0)
      const d = await dispute(id)
      assert.deepEqual([d.drawAnchor, d.deadline], [late.receipt.blockNumber, late.receipt.blockNumber + 1n + 100_000n])
      assert.ok(late.receipt.blockNumber > drawAnchor + 257n)
      const sent = await draw(id)
      const seed = (await ctx.publicClient.getBlock({blockNumber: late.receipt.blockNumber + 1n})).hash
      const expected = await predictCommittee(id, seed, [prover().address, challenger().address, ctx.actors.verifier.address])
      assert.deepEqual(only(sent.events, 'CommitteeDrawn').members, expected)
    })

    it('a committee nobody draws before its deadline resolves Void on timeout', async () => {
      const id = await toOpenCommittee()
      const {deadline} = await dispute(id)
      await mineUntilNext(deadline + 1n)
      const sent = await send(ctx.actors.deployer, 'timeout', [id])
      await expectResolved(id, Outcome.Void, Resolution.Committee, sent.events)
      assert.deepEqual(await committeeOf(id), {members: [], votes: []})
    })

    it('attack (issue 18, finding 4): sybil verifiers with no stake and a party that picks its block cannot pack the committee', async function () {
      this.timeout(120_000)
      // The packing that worked before: 64 fresh zero-stake verifier registrations right before the dispute, the
      // walk's whole window, so the committee came out empty (Void) or the attacker's.
      const listedBefore = await ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'verifierCount'})
      for (let k = 0; k < 64; k++) {
        const key = label(`sybil ${k}`)
        const account = privateKeyToAccount(key)
        await ctx.test.setBalance({address: account.address, value: parseEther('1')})
        const clients = await createClients({rpcUrl: ctx.anvil.rpcUrl, chainId: ctx.anvil.chainId, privateKey: key, pollingInterval: 10})
        await receiptOf(ctx.publicClient, await clients.walletClient.writeContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'register', args: [VERIFIER]}))
      }
      assert.equal(
        await ctx.publicClient.readContract({address: ctx.system.registry, abi: roleRegistryAbi, functionName: 'verifierCount'}),
        listedBefore,
        'an unstaked registration was listed for draws',
      )
      const honest = [ctx.actors.verifier2, extra.x1, extra.x2, extra.x3].map((a) => a.address)
      const id = await toOpenCommittee()
      // The opener (the challenger's post) fixed only the anchor; the hash of the block after it decides, whoever
      // sends the draw and whenever. That block is mined once, before the snapshot: mined again after a rollback
      // it could get another timestamp (anvil's clock), so another hash, and the test would compare two seeds.
      await ctx.test.mine({blocks: 1})
      const draws = new Set<string>()
      for (const wait of [0, 3]) {
        const rollBack = await snapshotChain(ctx)
        await ctx.test.mine({blocks: wait + 1})
        await send(ctx.actors.deployer, 'drawCommittee', [id])
        const {members} = await committeeOf(id)
        draws.add(members.join(','))
        assert.equal(members.length, 3, 'the committee is full')
        for (const member of members) assert.ok(honest.includes(member), `${member} has no stake, yet it was drawn`)
        await rollBack()
      }
      assert.equal(draws.size, 1, 'the draw changed with the block it was sent in')
    })

    const votings = [
      {votes: [1, 1, 2], outcome: Outcome.ProverWon, title: 'a prover majority: ProverWon'},
      {votes: [2, 1, 2], outcome: Outcome.ChallengerWon, title: 'a challenger majority: ChallengerWon'},
      {votes: [3, 3, 1], outcome: Outcome.BothWrong, title: 'a "neither" majority: BothWrong'},
      {votes: [1, 2, 3], outcome: Outcome.Void, title: 'a three-way tie: Void'},
    ]
    for (const voting of votings) {
      it(`resolves when the last member votes; ${voting.title}`, async () => {
        const {id} = await toCommittee()
        const {members} = await committeeOf(id)
        assert.equal(members.length, 3)
        const actors = [ctx.actors.verifier2, extra.x1, extra.x2, extra.x3]
        const byAddress = (address: Address) => actors.find((a) => a.address === address)!
        let last: Sent | undefined
        for (const [k, member] of members.entries()) {
          last = await send(byAddress(member), 'vote', [id, voting.votes[k]!])
          assert.deepEqual(only(last.events, 'Voted'), {id, member, choice: voting.votes[k]})
          if (k < members.length - 1) assert.equal((await dispute(id)).phase, Phase.Committee)
        }
        assert.deepEqual((await committeeOf(id)).votes, voting.votes)
        await expectResolved(id, voting.outcome, Resolution.Committee, last!.events)
        assert.equal((await dispute(id)).rounds, 2)
      })
    }

    const timeouts = [
      {votes: [1], outcome: Outcome.ProverWon, title: 'one vote for the prover: ProverWon'},
      {votes: [3], outcome: Outcome.BothWrong, title: 'one vote for neither: BothWrong'},
      {votes: [2, 2], outcome: Outcome.ChallengerWon, title: 'two votes for the challenger: ChallengerWon'},
      {votes: [1, 2], outcome: Outcome.Void, title: 'a tie: Void'},
      {votes: [], outcome: Outcome.Void, title: 'no vote: Void'},
    ]
    for (const t of timeouts) {
      it(`a Committee timeout tallies the votes cast; ${t.title}`, async () => {
        const {id} = await toCommittee()
        const {members} = await committeeOf(id)
        const actors = [ctx.actors.verifier2, extra.x1, extra.x2, extra.x3]
        for (const [k, choice] of t.votes.entries()) await send(actors.find((a) => a.address === members[k])!, 'vote', [id, choice])
        const {deadline} = await dispute(id)
        await mineUntilNext(deadline)
        await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'timeout', [id]), 'DeadlineNotReached', [id, deadline])
        await ctx.test.mine({blocks: 1})
        const sent = await send(ctx.actors.deployer, 'timeout', [id])
        assert.deepEqual(only(sent.events, 'TimedOut'), {id, phase: Phase.Committee})
        await expectResolved(id, t.outcome, Resolution.Committee, sent.events)
      })
    }

    it('no eligible verifier: the dispute is Void at once', async () => {
      await setParams({verifierStake: parseEther('100')})
      const {id, sent} = await toCommittee()
      assert.deepEqual(only(sent.events, 'CommitteeDrawn'), {id, members: [], question: Question.Graph, element: 0, deadline: sent.receipt.blockNumber + COMMITTEE_ROUND})
      await expectResolved(id, Outcome.Void, Resolution.Void, sent.events)
      assert.deepEqual(await committeeOf(id), {members: [], votes: []})
    })

    it('a smaller committee when fewer are eligible: excluding verifier2 as well leaves x1..x3', async () => {
      await setParams({committeeSize: 5})
      const {id} = await toCommittee({excluded: ctx.actors.verifier2.address})
      const {members} = await committeeOf(id)
      // verifier is eligible now (not excluded): verifier, x1, x2, x3.
      assert.deepEqual([...members].sort(), [ctx.actors.verifier, extra.x1, extra.x2, extra.x3].map((a) => a.address).sort())
    })

    it('reverts a vote by a non-member, a second vote, an invalid choice and a late vote', async () => {
      const {id} = await toCommittee()
      const {members} = await committeeOf(id)
      const actors = [ctx.actors.verifier2, extra.x1, extra.x2, extra.x3]
      const member = actors.find((a) => a.address === members[0])!
      const outsider = actors.find((a) => !members.includes(a.address))!
      const vote = (actor: Actor, choice: number) => write(ctx, actor, game, pinpointGameAbi, 'vote', [id, choice])
      await expectRevert(vote(outsider, 1), 'NotCommitteeMember', [id, outsider.address])
      await expectRevert(vote(prover(), 1), 'NotCommitteeMember', [id, prover().address])
      await expectRevert(vote(member, 0), 'InvalidChoice', [0])
      await expectRevert(vote(member, 4), 'InvalidChoice', [4])
      await vote(member, 2)
      await expectRevert(vote(member, 1), 'AlreadyVoted', [id, member.address])
      const {deadline} = await dispute(id)
      await mineUntilNext(deadline + 1n)
      const second = actors.find((a) => a.address === members[1])!
      await expectRevert(vote(second, 1), 'DeadlinePassed', [id, deadline])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'postTraceHeader', [id, 1, label('g'), label('f')]), 'WrongPhase', [id, Phase.Committee])
    })
  })

  // ================================================================ arbitration

  describe('arbitration', () => {
    /**
     * A small step traced as docs/disputes.md describes, with every output computed by tfjs-wasm:
     * 1 Input x[2,3], 2 Input w[3], 3 Add(1,2), 4 Relu(3), 5 Multiply(4,1), 6 Sub(5,2), 7 Neg(6).
     */
    let ops: Operation[]
    let outputs: Hex[]

    before(async () => {
      await selectBackend('wasm')
      const x = tf.tensor2d([
        [1.5, -2.25, 0.1],
        [-0.7, 3.3333333, 1e-30],
      ])
      const w = tf.tensor1d([0.3, -1.1, 7.77])
      const e3 = tf.add(x, w)
      const e4 = tf.relu(e3)
      const e5 = tf.mul(e4, x)
      const e6 = tf.sub(e5, w)
      const e7 = tf.neg(e6)
      outputs = [x, w, e3, e4, e5, e6, e7].map((t) => float32Bytes(t.dataSync() as Float32Array))
      tf.dispose([x, w, e3, e4, e5, e6, e7])
      ops = [
        input([2, 3]),
        input([3]),
        op('Add', [1, 2], [[2, 3], [3]], [2, 3]),
        op('Relu', [3], [[2, 3]], [2, 3]),
        op('Multiply', [4, 1], [[2, 3], [2, 3]], [2, 3]),
        op('Sub', [5, 2], [[2, 3], [3]], [2, 3]),
        op('Neg', [6], [[2, 3]], [2, 3]),
      ]
    })

    /** A dispute played to the arbitration of element j with these outputs per party. */
    async function toArbitration(proverOutputs: Hex[], challengerOutputs: Hex[], trace: {ops?: Operation[]} = {}) {
      const s = scenario({start: 0n, end: 4n, step: 2n, ops: trace.ops ?? ops, proverOutputs, challengerOutputs})
      const {id} = await open(s)
      await playUntil(id, s, Phase.Arbitration)
      return {id, s}
    }

    it('the contract and the helper hash a descriptor the same way', async () => {
      for (const operation of [...ops, op('Step', [1], [[2, 3]], [2, 3], encodeAbiParameters([{type: 'uint32'}], [0x3dcccccd]))]) {
        assert.equal(await read('descriptorHash', [operation]), descriptorHash(operation))
      }
    })

    for (const j of [3, 4, 5, 6, 7]) {
      it(`element ${j} (${['Add', 'Relu', 'Multiply', 'Sub', 'Neg'][j - 3]}): the prover's tfjs-wasm output is right, ProverWon`, async () => {
        const {id, s} = await toArbitration(outputs, wrongAt(outputs, j))
        assert.equal((await dispute(id)).element, j)
        const sent = await arbitrate(id, s.proverTrace)
        assert.deepEqual(only(sent.events, 'Arbitrated'), {id, kernel: ops[j - 1]!.kernel, outcome: Outcome.ProverWon, commitment: s.proverTrace.commitments[j]})
        await expectResolved(id, Outcome.ProverWon, Resolution.Arbitration, sent.events)
      })
    }

    it('the challenger is right: ChallengerWon', async () => {
      const {id, s} = await toArbitration(wrongAt(outputs, 5), outputs)
      // The agreed data are the same in both traces up to element 4.
      const sent = await arbitrate(id, s.challengerTrace)
      assert.deepEqual(only(sent.events, 'Arbitrated'), {id, kernel: 'Multiply', outcome: Outcome.ChallengerWon, commitment: s.challengerTrace.commitments[5]})
      await expectResolved(id, Outcome.ChallengerWon, Resolution.Arbitration, sent.events)
    })

    it('both are wrong: BothWrong', async () => {
      const {id, s} = await toArbitration(wrongAt(outputs, 6, 1), wrongAt(outputs, 6, 2))
      const sent = await arbitrate(id, s.proverTrace)
      assert.deepEqual(only(sent.events, 'Arbitrated'), {id, kernel: 'Sub', outcome: Outcome.BothWrong, commitment: buildTrace(agreedState(2n), 2n, ops, outputs).commitments[6]})
      await expectResolved(id, Outcome.BothWrong, Resolution.Arbitration, sent.events)
    })

    it('reverts data that do not match the agreed graph, descriptor, outputs or inputs', async () => {
      const {id, s} = await toArbitration(outputs, wrongAt(outputs, 5))
      const t = s.proverTrace
      const [operation, descriptors, outputHashes, inputs] = arbitration(t, 5)
      const call = (args: readonly unknown[]) => write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'arbitrate', [id, ...args])
      await expectRevert(call([operation, descriptors.slice(1), outputHashes, inputs]), 'WrongLength', ['descriptorHashes', 7n, 6n])
      const badGraph = [...descriptors]
      badGraph[6] = label('another op')
      await expectRevert(call([operation, badGraph, outputHashes, inputs]), 'GraphMismatch', [t.graphHash, graphHash(badGraph)])
      const otherOp = {...operation, inputs: [1, 4]}
      await expectRevert(call([otherOp, descriptors, outputHashes, inputs]), 'DescriptorMismatch', [5, descriptors[4], descriptorHash(otherOp)])
      await expectRevert(call([ops[3]!, descriptors, outputHashes, inputs]), 'DescriptorMismatch', [5, descriptors[4], descriptorHash(ops[3]!)])
      await expectRevert(call([operation, descriptors, outputHashes.slice(1), inputs]), 'WrongLength', ['outputHashes', 4n, 3n])
      const badOutputs = [...outputHashes]
      badOutputs[0] = label('another output')
      const chained = badOutputs.reduce<Hex>((c, o) => nextCommitment(c, o), initialCommitment(agreedState(2n), 2n))
      await expectRevert(call([operation, descriptors, badOutputs, inputs]), 'OutputsMismatch', [t.commitments[4], chained])
      await expectRevert(call([operation, descriptors, outputHashes, inputs.slice(1)]), 'WrongLength', ['inputs', 2n, 1n])
      const badInput = perturb(inputs[1]!)
      await expectRevert(call([operation, descriptors, outputHashes, [inputs[0], badInput]]), 'InputMismatch', [1n, t.outputHashes[0], keccak256(badInput)])
      await expectRevert(call([operation, descriptors, outputHashes, [inputs[1], inputs[0]]]), 'InputMismatch', [0n, t.outputHashes[3], keccak256(inputs[1]!)])
      // Nothing changed: the honest data still decide.
      await arbitrate(id, t)
      assert.equal(await read('outcomeOf', [id]), Outcome.ProverWon)
    })

    it('reverts NotDecidableOnchain for an unsupported kernel, a non-float32 output, a tensor over maxOnchainElements or data that do not fit the shapes; a party escalates', async () => {
      const cases: {title: string; element: Operation; limit?: number}[] = [
        {title: 'unsupported kernel', element: op('MatMul', [1, 2], [[2, 3], [3]], [2, 3])},
        {title: 'int32 output', element: {...op('Add', [1, 2], [[2, 3], [3]], [2, 3]), outputDtype: 'int32'}},
        {title: 'input shape count', element: op('Add', [1, 2], [[2, 3]], [2, 3])},
        {title: 'output over the limit', element: op('Add', [1, 2], [[2, 3], [3]], [2, 3]), limit: 5},
        {title: 'input over the limit', element: op('Reshape', [1], [[2, 3]], [1]), limit: 5},
        {title: 'shape does not fit the data', element: op('Relu', [1], [[3, 3]], [3, 3])},
      ]
      for (const c of cases) {
        if (c.limit) await setParams({maxOnchainElements: c.limit})
        const custom = [...ops.slice(0, 2), c.element]
        const proverOutputs = outputs.slice(0, 3)
        const {id, s} = await toArbitration(proverOutputs, wrongAt(proverOutputs, 3), {ops: custom})
        assert.equal((await dispute(id)).element, 3, c.title)
        await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'arbitrate', [id, ...arbitration(s.proverTrace, 3)]), 'NotDecidableOnchain', [c.element.kernel])
        if (c.limit) await setParams({maxOnchainElements: 4096})
      }
    })

    it('reverts an input that names the element itself or a later one (a malformed agreed graph)', async () => {
      const custom = [...ops.slice(0, 2), op('Add', [1, 3], [[2, 3], [2, 3]], [2, 3])]
      const proverOutputs = outputs.slice(0, 3)
      const {id, s} = await toArbitration(proverOutputs, wrongAt(proverOutputs, 3), {ops: custom})
      const [operation, descriptors, outputHashes] = arbitration(s.proverTrace, 3)
      await expectRevert(
        write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'arbitrate', [id, operation, descriptors, outputHashes, [outputs[0]!, outputs[2]!]]),
        'InputOutOfRange',
        [1n, 3],
      )
    })

    it('escalate: only a party, in Arbitration and in time, sends the element to the committee', async () => {
      const {id} = await toArbitration(outputs, wrongAt(outputs, 4))
      await expectRevert(write(ctx, ctx.actors.deployer, game, pinpointGameAbi, 'escalate', [id]), 'NotParty', [id, ctx.actors.deployer.address])
      const sent = await send(challenger(), 'escalate', [id])
      assert.deepEqual(only(sent.events, 'Escalated'), {id, party: challenger().address})
      const opened = only(sent.events, 'CommitteeOpened')
      assert.deepEqual([opened.question, opened.element, opened.anchor], [Question.Operator, 4, sent.receipt.blockNumber])
      const d = await dispute(id)
      assert.deepEqual([d.phase, d.question, d.element], [Phase.Committee, Question.Operator, 4])
      assert.equal(await read('currentIndex', [id]), 4n)
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'escalate', [id]), 'WrongPhase', [id, Phase.Committee])

      const late = await toArbitration(outputs, wrongAt(outputs, 4))
      const {deadline} = await dispute(late.id)
      await mineUntilNext(deadline + 1n)
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'escalate', [late.id]), 'DeadlinePassed', [late.id, deadline])
      await expectRevert(write(ctx, prover(), game, pinpointGameAbi, 'arbitrate', [late.id, ...arbitration(late.s.proverTrace, 4)]), 'DeadlinePassed', [late.id, deadline])
    })
  })

  // ================================================================ full games

  describe('full games', () => {
    const log2ceil = (n: number) => Math.ceil(Math.log2(n))

    for (const [k, m] of [
      [1, 2],
      [2, 3],
      [5, 4],
      [8, 7],
      [13, 20],
    ] as const) {
      it(`k = ${k} steps, m = ${m} operators: rounds = ceil(log2 k) + 1 + ceil(log2 (m + 1)) + 1 = ${log2ceil(k) + 1 + log2ceil(m + 1) + 1}`, async () => {
        // Disputed: the last step and its last operator, which makes every bisection take its longest path.
        const chain = negChain(m)
        const s = scenario({start: 50n, end: 50n + BigInt(k), ops: chain.ops, proverOutputs: chain.outputs, challengerOutputs: wrongAt(chain.outputs, m)})
        const {id} = await open(s)
        await playUntil(id, s, Phase.Arbitration)
        assert.equal((await dispute(id)).element, m)
        const sent = await arbitrate(id, s.proverTrace)
        await expectResolved(id, Outcome.ProverWon, Resolution.Arbitration, sent.events)
        assert.equal((await dispute(id)).rounds, log2ceil(k) + 1 + log2ceil(m + 1) + 1)
      })
    }

    for (const [k, m, j] of [
      [8, 7, 4],
      [64, 255, 200],
      [128, 1023, 1000],
    ] as const) {
      it(`gas of a complete dispute over ${k} steps and ${m} operators (arbitration of element ${j}, a Neg of 4 floats)`, async function () {
        this.timeout(300_000)
        const chain = negChain(m)
        const s = scenario({start: 0n, end: BigInt(k), step: BigInt(k) - 1n, ops: chain.ops, proverOutputs: chain.outputs, challengerOutputs: wrongAt(chain.outputs, j)})
        const {id, sent: opened} = await open(s)
        const moves = await playUntil(id, s, Phase.Arbitration)
        const arbitrated = await arbitrate(id, s.proverTrace)
        await expectResolved(id, Outcome.ProverWon, Resolution.Arbitration, arbitrated.events)
        const sum = (sent: Sent[]) => sent.reduce((total, x) => total + x.receipt.gasUsed, 0n)
        const all = [opened, ...moves, arbitrated]
        const total = sum(all)
        const rounds = (await dispute(id)).rounds
        if (process.env.GAS_REPORT) {
          console.log(
            `      k=${k} m=${m}: ${all.length} transactions, ${rounds} rounds, total ${total} gas ` +
              `(open ${opened.receipt.gasUsed}, moves ${sum(moves)}, arbitrate ${arbitrated.receipt.gasUsed})`,
          )
        }
        assert.ok(total > 0n)
      })
    }
  })
})
