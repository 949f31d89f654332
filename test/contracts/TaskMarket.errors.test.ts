import assert from 'node:assert/strict'

import {type Address, getAddress, type Hex, maxUint256, parseEther, zeroAddress, zeroHash} from 'viem'

import {defaultProtocolParams, deployContracts} from '../../src/chain/deployContracts.js'
import {merkleProof} from '../../src/ml/checkpoint/merkle.js'
import {
  solverBookAbi,
  solverBookBytecode,
  taskMarketAbi,
  taskMarketBytecode,
  taskMarketDisputesAbi,
  taskMarketDisputesBytecode,
} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  bookWrite,
  configWrite,
  deployBareRegistry,
  deployMarket,
  expectDeployRevert,
  expectRevert,
  getTask,
  marketWrite,
  registryWrite,
  TEST_PRICE,
  testOffer,
  useChain,
  write,
  readMarket,
} from './helpers/chain.js'
import {
  challengeCommitArgs,
  childProof,
  commitChallenge,
  commitArgs,
  defaultSecret,
  defaultTask,
  disputeArgs,
  driveTask,
  label,
  makeProof,
  mineTo,
  openArgs,
  passWindows,
  type Proof,
  proof,
  registerSolver,
  rejection,
  secretHashOf,
  setMarket,
  setWorkTable,
  type Start,
  startOf,
  Status,
  submission,
  type Submission,
  submitTask,
  taskAt,
  testSalt,
  toOpenWindow,
  toRevealWindow,
  verdictArgs,
  revealArgs,
} from './helpers/tasks.js'

const MAX_TIMEOUT = 365n * 24n * 3600n
const WHISTLEBLOWER = 4
const claimed = label('whistleblower replay')

/** One test per custom error path of TaskMarket (registry errors that bubble through it included). */
describe('TaskMarket errors (on anvil)', () => {
  const ctx = useChain({stake: parseEther('20'), disputeActors: true})
  const submit = (overrides: Partial<Submission>, by = ctx.actors.submitter) => {
    const t = submission(overrides)
    return marketWrite(ctx, by, 'submitTask', [t.specHash, t.workUnits, t.maxSteps, t.maxPrice, t.parentId], {value: t.escrow})
  }
  const setParams = (change: Partial<typeof defaultProtocolParams>) =>
    configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, ...change}])
  /** A market deployed by `deployer` on the shared registry and config (with its own book), with no game set. */
  async function bareMarket(): Promise<Address> {
    return (await deployMarket(ctx, ctx.system.registry)).market
  }
  const wb = () => ctx.extra.wb1

  describe('constructor, setGame, fundJackpot', () => {
    const deploy = (args: readonly [Address, Address, Address, Address, Address]) =>
      ctx.actors.deployer.wallet.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args})
    const wiring = (): [Address, Address, Address, Address, Address] => [
      ctx.system.registry,
      ctx.actors.treasury.address,
      ctx.system.config,
      ctx.system.book,
      ctx.system.disputes,
    ]

    for (const [which, index] of [
      ['registry', 0],
      ['treasury', 1],
      ['config', 2],
      ['book', 3],
      ['disputes', 4],
    ] as const) {
      it(`the constructor reverts ZeroAddress for a zero ${which}`, async () => {
        const args = wiring()
        args[index] = zeroAddress
        await expectDeployRevert(deploy(args), taskMarketAbi, 'ZeroAddress', [])
      })
    }
    for (const [which, index] of [
      ['registry', 0],
      ['treasury', 1],
      ['config', 2],
      ['book', 3],
    ] as const) {
      it(`the constructor reverts DisputesMismatch(disputes) when the disputes contract has another ${which}`, async () => {
        const args = wiring()
        args[index] = ctx.actors.other.address
        await expectDeployRevert(deploy(args), taskMarketAbi, 'DisputesMismatch', [ctx.system.disputes])
      })
    }
    it('TaskMarketDisputes: its constructor reverts ZeroAddress, and a direct call (not through a market) reverts NotDelegated', async () => {
      const args: [Address, Address, Address, Address] = [ctx.system.registry, ctx.actors.treasury.address, ctx.system.config, zeroAddress]
      await expectDeployRevert(
        ctx.actors.deployer.wallet.deployContract({abi: taskMarketDisputesAbi, bytecode: taskMarketDisputesBytecode, args}),
        taskMarketDisputesAbi,
        'ZeroAddress',
        [],
      )
      const id = await taskAt(ctx, 'Verified')
      const direct = (functionName: string, callArgs: readonly unknown[]) => write(ctx, wb(), ctx.system.disputes, taskMarketDisputesAbi, functionName, callArgs)
      await expectRevert(direct('commitChallenge', challengeCommitArgs(id, wb().address, 1, claimed)), 'NotDelegated', [])
      await expectRevert(direct('openChallenge', openArgs(id, proof, 1, claimed)), 'NotDelegated', [])
      await expectRevert(direct('disputeRejection', disputeArgs(id, proof, 1)), 'NotDelegated', [])
      await expectRevert(direct('revealForcedError', [id, defaultSecret, zeroHash, proof.root, proof.manifest]), 'NotDelegated', [])
      await expectRevert(direct('expire', [id]), 'NotDelegated', [])
    })
    it('setGame reverts NotOwner(caller) for anyone but the deployer', async () => {
      const market = await bareMarket()
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'setGame', [ctx.system.game], {address: market}), 'NotOwner', [ctx.actors.other.address])
    })
    it('setGame reverts ZeroAddress for the zero address', async () => {
      const market = await bareMarket()
      await expectRevert(marketWrite(ctx, ctx.actors.deployer, 'setGame', [zeroAddress], {address: market}), 'ZeroAddress', [])
    })
    it('setGame reverts GameAlreadySet the second time (it emitted GameSet the first)', async () => {
      const market = await bareMarket()
      const set = await marketWrite(ctx, ctx.actors.deployer, 'setGame', [ctx.system.game], {address: market})
      assert.deepEqual(
        set.events.map((e) => [e.eventName, e.args]),
        [['GameSet', {game: getAddress(ctx.system.game)}]],
      )
      await expectRevert(marketWrite(ctx, ctx.actors.deployer, 'setGame', [ctx.system.game], {address: market}), 'GameAlreadySet', [])
    })
    it('fundJackpot reverts ZeroAmount without value', async () => {
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'fundJackpot', []), 'ZeroAmount', [])
    })
    it('jackpotShares reverts TooManyCatchers(n) above 255', async () => {
      await expectRevert(
        ctx.publicClient.readContract({address: ctx.system.disputes, abi: taskMarketDisputesAbi, functionName: 'jackpotShares', args: [1n, 256n]}),
        'TooManyCatchers',
        [256n],
      )
    })
  })

  describe('submitTask', () => {
    it('reverts InsufficientEscrow(provided, required) one wei below ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000)', async () => {
      await expectRevert(submit({escrow: parseEther('3') - 1n}), 'InsufficientEscrow', [parseEther('3') - 1n, parseEther('3')])
      // A higher maxPrice asks for more, whatever the price will be.
      await expectRevert(submit({maxPrice: 2n * TEST_PRICE, escrow: parseEther('3')}), 'InsufficientEscrow', [parseEther('3'), parseEther('6')])
    })
    it('reverts InsufficientEscrow with a saturated requirement when the escrow overflows', async () => {
      await expectRevert(submit({maxPrice: maxUint256, escrow: 1n}), 'InsufficientEscrow', [1n, maxUint256])
    })
    it('reverts ZeroSpecHash', async () => {
      await expectRevert(submit({specHash: zeroHash}), 'ZeroSpecHash', [])
    })
    it('reverts InvalidWorkUnits(workUnits, maxWorkUnits) for 0 and above the work table limit (and accepts the limit)', async () => {
      await setWorkTable(ctx, {maxWorkUnits: 1_000_000n})
      await expectRevert(submit({workUnits: 0n}), 'InvalidWorkUnits', [0n, 1_000_000n])
      await expectRevert(submit({workUnits: 1_000_001n}), 'InvalidWorkUnits', [1_000_001n, 1_000_000n])
      assert.equal((await submit({workUnits: 1_000_000n})).receipt.status, 'success')
    })
    it('reverts InvalidMaxSteps(maxSteps, limit) for 0 and above the work table limit (and accepts the limit)', async () => {
      await setWorkTable(ctx, {maxSteps: 500n})
      await expectRevert(submit({maxSteps: 0n}), 'InvalidMaxSteps', [0n, 500n])
      await expectRevert(submit({maxSteps: 501n}), 'InvalidMaxSteps', [501n, 500n])
      assert.equal((await submit({maxSteps: 500n})).receipt.status, 'success')
    })
    it('reverts MaxPriceBelowFloor(maxPrice, priceFloor) for a maxPrice no claim could ever pay', async () => {
      await expectRevert(submit({maxPrice: TEST_PRICE - 1n}), 'MaxPriceBelowFloor', [TEST_PRICE - 1n, TEST_PRICE])
    })
    it('reverts InvalidTimeout when the training timeout (base + ceil(workUnits / minWorkUnitsPerSecond)) exceeds MAX_TIMEOUT', async () => {
      await setMarket(ctx, {trainingBaseSeconds: MAX_TIMEOUT - 100n})
      // 250,000 work units at 2,500 per second: 100 s, exactly MAX_TIMEOUT.
      const ok = await submit({})
      assert.equal((await getTask(ctx, (ok.events[0]!.args.id as bigint))).trainingTimeout, MAX_TIMEOUT)
      await expectRevert(submit({workUnits: 250_001n}), 'InvalidTimeout', [])
    })
    it('reverts TaskNotFound(parentId) for a parent that does not exist', async () => {
      await expectRevert(submit({parentId: 1n}), 'TaskNotFound', [1n])
    })
    it('reverts ForeignParent(parentId, caller) for a parent another account submitted', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(submit({parentId: id}, ctx.actors.other), 'ForeignParent', [id, ctx.actors.other.address])
    })
  })

  describe('unknown tasks', () => {
    for (const fn of ['claimVerification', 'settle', 'expire'] as const) {
      it(`${fn} reverts TaskNotFound for id 0 and for taskCount + 1`, async () => {
        await submitTask(ctx)
        await expectRevert(marketWrite(ctx, ctx.actors.solver, fn, [0n]), 'TaskNotFound', [0n])
        await expectRevert(marketWrite(ctx, ctx.actors.solver, fn, [2n]), 'TaskNotFound', [2n])
      })
    }
    it('claimTask, commitProof, postVerdict, commitChallenge, openChallenge, disputeRejection and revealForcedError revert TaskNotFound', async () => {
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [7n, zeroHash]), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(7n)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', verdictArgs(7n, true)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, wb(), 'commitChallenge', challengeCommitArgs(7n, wb().address, 0, claimed)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, wb(), 'openChallenge', openArgs(7n, proof, 0, claimed)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'disputeRejection', disputeArgs(7n, proof, 0)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'revealForcedError', [7n, defaultSecret, zeroHash, proof.root, proof.manifest]), 'TaskNotFound', [7n])
    })
    it('getTask, challengesOf and forcedErrorOf revert TaskNotFound', async () => {
      // Each call is made only when awaited: an eager rejected promise would surface as an uncaught error.
      for (const call of [
        () => readMarket(ctx, 'getTask', [1n]),
        () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'challengesOf', args: [1n]}),
        () => readMarket(ctx, 'forcedErrorOf', [1n, defaultSecret]),
      ]) {
        await expectRevert(call(), 'TaskNotFound', [1n])
      }
    })
  })

  describe('claimTask', () => {
    it('reverts InvalidStatus(id, Claimed) when already claimed', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'InvalidStatus', [id, Status.Claimed])
    })
    it('reverts NotRegistered(account, SOLVER) for an unregistered account', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id, zeroHash]), 'NotRegistered', [ctx.actors.other.address, 1])
    })
    it('reverts NotRegistered(account, SOLVER) for a verifier-only account', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimTask', [id, zeroHash]), 'NotRegistered', [ctx.actors.verifier.address, 1])
    })
    it('reverts DeadlinePassed(id, deadline) after the claim timeout', async () => {
      const {id} = await submitTask(ctx)
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'DeadlinePassed', [id, deadline])
    })
    it('reverts SolverRejected(id, solver) when a solver rejected on the task tries to claim it again', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'SolverRejected', [id, ctx.actors.solver.address])
      // Only that task: the same solver still claims others.
      const {id: next} = await submitTask(ctx)
      await marketWrite(ctx, ctx.actors.solver, 'claimTask', [next, zeroHash])
    })
    it('reverts EscrowExhausted(id, escrow, required) when rejection shortfalls left too little escrow for both rewards (1 wei short)', async () => {
      await registerSolver(ctx, ctx.actors.other, parseEther('1'))
      // 750,000 work units: verifierReward 1.5 ether > solverStake 1 ether, so the rejection pays 0.5 ether of the
      // escrow, leaving 1 wei less than solverReward + verifierReward = 7.5 + 1.5 ether.
      const id = await taskAt(ctx, 'Verified', {accepted: false, workUnits: 750_000n, escrow: parseEther('9.5') - 1n})
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id, zeroHash]), 'EscrowExhausted', [id, parseEther('9') - 1n, parseEther('9')])
      // With exactly enough left, the next solver claims.
      const exact = await taskAt(ctx, 'Verified', {accepted: false, workUnits: 750_000n, escrow: parseEther('9.5')})
      await passWindows(ctx, exact)
      await marketWrite(ctx, ctx.actors.other, 'settle', [exact])
      assert.equal((await getTask(ctx, exact)).escrow, parseEther('9'))
      await marketWrite(ctx, ctx.actors.other, 'claimTask', [exact, zeroHash])
      assert.equal((await getTask(ctx, exact)).status, Status.Claimed)
    })
    it('reverts NotListed(solver) for a registered solver without an offer, and after it withdrew its offer', async () => {
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('2')})
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id, zeroHash]), 'NotListed', [ctx.actors.other.address])
      await bookWrite(ctx, ctx.actors.solver, 'withdrawOffer', [])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'NotListed', [ctx.actors.solver.address])
    })
    it('reverts AtCapacity(solver, capacity) once the solver holds `capacity` tasks, and claims again once one is released', async () => {
      await bookWrite(ctx, ctx.actors.solver, 'setOffer', [TEST_PRICE, 2])
      const first = await taskAt(ctx, 'Verified')
      await taskAt(ctx, 'Claimed')
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'AtCapacity', [ctx.actors.solver.address, 2])
      await passWindows(ctx, first)
      await marketWrite(ctx, ctx.actors.other, 'settle', [first])
      await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash])
    })
    it('reverts AskAbovePrice(solver, ask, price) for a solver asking more than the posted price', async () => {
      await bookWrite(ctx, ctx.actors.solver, 'setOffer', [TEST_PRICE + 1n, testOffer.capacity])
      const {id} = await submitTask(ctx, {maxPrice: 2n * TEST_PRICE})
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'AskAbovePrice', [ctx.actors.solver.address, TEST_PRICE + 1n, TEST_PRICE])
    })
    it('reverts PriceAboveMax(price, maxPrice) when the price rose above what the submitter pays', async () => {
      // A floor below the price (epochs too long for the controller to move it during the test).
      await setMarket(ctx, {priceFloor: 1n, initialPrice: 1n, priceEpochBlocks: 100_000})
      const {id} = await submitTask(ctx, {maxPrice: TEST_PRICE - 1n})
      // The price is still TEST_PRICE: above this task's maxPrice.
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash]), 'PriceAboveMax', [TEST_PRICE, TEST_PRICE - 1n])
    })
    describe('a task with a parent', () => {
      it('reverts ParentNotSettled(id, parentId) while the parent is in any stage before Settled', async () => {
        const {id: parent} = await submitTask(ctx)
        const {id: child} = await submitTask(ctx, {parentId: parent})
        const claimChild = () => marketWrite(ctx, ctx.extra.solver2, 'claimTask', [child, zeroHash])
        await expectRevert(claimChild(), 'ParentNotSettled', [child, parent])
        for (const stage of ['Claimed', 'Committed', 'Verifying', 'Verified'] as const) {
          const {id: p} = await submitTask(ctx)
          await driveTask(ctx, p, stage)
          const {id: c} = await submitTask(ctx, {parentId: p})
          await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [c, zeroHash]), 'ParentNotSettled', [c, p])
        }
      })
      it('reverts ParentNotSettled(id, parentId) when the parent expired', async () => {
        const {id: parent} = await submitTask(ctx)
        const {id: child} = await submitTask(ctx, {parentId: parent})
        await advanceTime(ctx, defaultTask.claimTimeout + 1n)
        await marketWrite(ctx, ctx.actors.other, 'expire', [parent])
        await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [child, zeroHash]), 'ParentNotSettled', [child, parent])
      })
      it('reverts ParentStoppedEarly(id, parentId) when the parent settled with fewer steps than its range', async () => {
        const early = makeProof('early stop', {count: 3, interval: 10n, totalSteps: 20n})
        const parent = await taskAt(ctx, 'Verified', {published: early})
        await passWindows(ctx, parent)
        await marketWrite(ctx, ctx.actors.other, 'settle', [parent])
        const {id: child} = await submitTask(ctx, {parentId: parent})
        await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [child, zeroHash]), 'ParentStoppedEarly', [child, parent])
      })
      it('reverts DeadlinePassed(id, deadline) past max(its deadline, the parent\'s settlement + claimTimeout)', async () => {
        const parent = await taskAt(ctx, 'Verified')
        const {id: child} = await submitTask(ctx, {parentId: parent})
        await passWindows(ctx, parent)
        // The child's own deadline passes while the parent is still Verified: it cannot expire, nor be claimed yet.
        await advanceTime(ctx, defaultTask.claimTimeout + 1n)
        await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [child]), 'DeadlineNotReached', [child, 2n ** 64n - 1n])
        await marketWrite(ctx, ctx.actors.other, 'settle', [parent])
        const settledAt = (await getTask(ctx, parent)).deadline
        await advanceTime(ctx, defaultTask.claimTimeout + 1n)
        await expectRevert(marketWrite(ctx, ctx.extra.solver2, 'claimTask', [child, zeroHash]), 'DeadlinePassed', [child, settledAt + defaultTask.claimTimeout])
      })
    })
    it('bubbles the registry InsufficientFreeStake(available, requested) for a solver without enough stake', async () => {
      // Listed with the stake its offer needs, then unbonding most of it (the offer stays until someone prunes it).
      await registerSolver(ctx, ctx.actors.other, parseEther('1'))
      await registryWrite(ctx, ctx.actors.other, 'requestUnbond', [parseEther('0.75')])
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id, zeroHash]), 'InsufficientFreeStake', [parseEther('0.25'), parseEther('1')])
    })
    it('bubbles the registry NotMarket when the registry is wired to another market', async () => {
      const registry = await deployBareRegistry(ctx, {market: ctx.actors.marketEoa})
      const {market, book} = await deployMarket(ctx, registry)
      await registerSolver(ctx, ctx.actors.solver, parseEther('2'), {registry, book})
      const {id} = await submitTask(ctx, {market})
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash], {address: market}), 'NotMarket', [])
    })
  })

  describe('commitProof', () => {
    /** A claimed task whose seed block exists (the commit may go ahead). */
    async function claimedTask(): Promise<bigint> {
      const id = await taskAt(ctx, 'Claimed')
      await ctx.test.mine({blocks: 1})
      return id
    }
    it('reverts InvalidStatus(id, Submitted) before a claim', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id)), 'InvalidStatus', [id, Status.Submitted])
    })
    it('reverts InvalidStatus(id, Committed) on a second commit', async () => {
      const id = await taskAt(ctx, 'Committed')
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id)), 'InvalidStatus', [id, Status.Committed])
    })
    it('reverts NotSolver(id, caller) for anyone but the solver', async () => {
      const id = await claimedTask()
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'commitProof', commitArgs(id)), 'NotSolver', [id, ctx.actors.verifier.address])
    })
    it('reverts DeadlinePassed(id, deadline) after the training timeout', async () => {
      const id = await claimedTask()
      await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id)), 'DeadlinePassed', [id, deadline])
    })
    it('reverts ZeroProofRoot for a zero proof root or a zero manifest hash', async () => {
      const id = await claimedTask()
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id, {...proof, root: zeroHash})), 'ZeroProofRoot', [])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id, {...proof, manifest: zeroHash})), 'ZeroProofRoot', [])
    })
    for (const [what, count, interval, totalSteps] of [
      ['a zero interval', 5, 0n, 40n],
      ['zero total steps', 1, 10n, 0n],
      ['one checkpoint too many', 6, 10n, 40n],
      ['one checkpoint too few', 4, 10n, 40n],
      ['a short last segment counted short', 4, 10n, 31n],
      ['no checkpoint at all', 0, 10n, 40n],
      ['more steps than the task\'s range (maxSteps 40)', 6, 10n, 41n],
      // The task packs the interval in 40 bits: one past MAX_STEPS would otherwise be one checkpoint at the end.
      ['an interval past MAX_STEPS (2^40 - 1)', 2, 2n ** 40n, 40n],
    ] as const) {
      it(`reverts InvalidSchedule(count, interval, totalSteps) for ${what}`, async () => {
        const id = await claimedTask()
        await expectRevert(
          marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id, {...proof, count, interval, totalSteps})),
          'InvalidSchedule',
          [count, interval, totalSteps],
        )
      })
    }
    describe('a task with a parent: the stacking proofs', () => {
      const parentProof = makeProof('parent')
      const child = childProof(parentProof, 'child')
      /** A child of a settled parent (committed `parentProof`), claimed by solver2, its seed block mined. */
      async function claimedChild(): Promise<bigint> {
        const parent = await taskAt(ctx, 'Verified', {published: parentProof})
        await passWindows(ctx, parent)
        await marketWrite(ctx, ctx.actors.other, 'settle', [parent])
        const {id} = await submitTask(ctx, {parentId: parent})
        await marketWrite(ctx, ctx.extra.solver2, 'claimTask', [id, zeroHash])
        await ctx.test.mine({blocks: 1})
        return id
      }
      const commit = (id: bigint, start: Start, published: Proof = child) =>
        marketWrite(ctx, ctx.extra.solver2, 'commitProof', commitArgs(id, published, published, defaultSecret, start))
      it('reverts InvalidMerkleProof(id, 0) when startCheckpoint is not leaf 0 of the committed proof', async () => {
        const id = await claimedChild()
        const good = startOf(parentProof, child)
        // Another checkpoint, a proof of another leaf, a truncated proof, no proof at all.
        await expectRevert(commit(id, {...good, checkpoint: child.checkpoints[1]!}), 'InvalidMerkleProof', [id, 0n])
        await expectRevert(commit(id, {...good, proof: merkleProof(child.checkpoints, 1)}), 'InvalidMerkleProof', [id, 0n])
        await expectRevert(commit(id, {...good, proof: good.proof.slice(1)}), 'InvalidMerkleProof', [id, 0n])
        await expectRevert(commit(id, {...good, proof: []}), 'InvalidMerkleProof', [id, 0n])
        // A proof whose first checkpoint is not the parent's last, proven honestly against its own root.
        const unrelated = makeProof('unrelated')
        await expectRevert(commit(id, startOf(parentProof, unrelated), unrelated), 'InvalidMerkleProof', [id - 1n, BigInt(parentProof.count - 1)])
        await commit(id, good)
      })
      it('reverts InvalidMerkleProof(parentId, last) when the parent-side proof does not prove the parent\'s last checkpoint', async () => {
        const id = await claimedChild()
        const good = startOf(parentProof, child)
        const parentId = id - 1n
        const last = BigInt(parentProof.count - 1)
        // A proof of another parent leaf, a truncated one, one with an extra sibling, none.
        await expectRevert(commit(id, {...good, parentFinalProof: merkleProof(parentProof.checkpoints, 0)}), 'InvalidMerkleProof', [parentId, last])
        await expectRevert(commit(id, {...good, parentFinalProof: good.parentFinalProof.slice(1)}), 'InvalidMerkleProof', [parentId, last])
        await expectRevert(commit(id, {...good, parentFinalProof: [...good.parentFinalProof, zeroHash]}), 'InvalidMerkleProof', [parentId, last])
        await expectRevert(commit(id, {...good, parentFinalProof: []}), 'InvalidMerkleProof', [parentId, last])
      })
    })
    it('reverts RandomnessNotReady(id, claimBlock + 2) in the block right after the claim', async () => {
      const id = await taskAt(ctx, 'Claimed')
      const {claimBlock} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id)), 'RandomnessNotReady', [id, claimBlock + 2n])
      await ctx.test.mine({blocks: 1})
      await marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id))
    })
  })

  describe('claimVerification', () => {
    it('reverts InvalidStatus(id, Claimed) before the commit', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'InvalidStatus', [id, Status.Claimed])
    })
    it('reverts NotRegistered(account, VERIFIER) for an unregistered account', async () => {
      const id = await taskAt(ctx, 'Committed')
      await ctx.test.mine({blocks: 1})
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimVerification', [id]), 'NotRegistered', [ctx.actors.other.address, 2])
    })
    it('reverts SolverCannotVerify(id) when the solver (also a verifier) tries to verify itself', async () => {
      await registryWrite(ctx, ctx.actors.solver, 'register', [2])
      const id = await taskAt(ctx, 'Committed')
      await ctx.test.mine({blocks: 1})
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimVerification', [id]), 'SolverCannotVerify', [id])
    })
    it('reverts VerifierBarred(id, verifier) for a verifier barred on the task (here: after a void rejection dispute)', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false, replayHash: proof.checkpoints[rejection.segment + 1]})
      await marketWrite(ctx, ctx.actors.solver, 'disputeRejection', disputeArgs(id, proof, rejection.segment))
      await passWindows(ctx, id)
      // The verifier's own replay hash equals the committed checkpoint: the solver wins without a game.
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      assert.equal((await getTask(ctx, id)).status, Status.Committed)
      await ctx.test.mine({blocks: 1})
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'VerifierBarred', [id, ctx.actors.verifier.address])
      await marketWrite(ctx, ctx.actors.verifier2, 'claimVerification', [id])
    })
    it('reverts DeadlinePassed(id, deadline) after the verification timeout', async () => {
      const id = await taskAt(ctx, 'Committed')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'DeadlinePassed', [id, deadline])
    })
    it('reverts RandomnessNotReady(id, commitBlock + 2) in the block right after the commit', async () => {
      const id = await taskAt(ctx, 'Committed')
      const {commitBlock} = await getTask(ctx, id)
      assert.equal(await ctx.publicClient.getBlockNumber({cacheTime: 0}), commitBlock)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'RandomnessNotReady', [id, commitBlock + 2n])
      await ctx.test.mine({blocks: 1})
      await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
    })
    it('bubbles InsufficientFreeStake(available, requested) for a verifier without enough stake', async () => {
      await registryWrite(ctx, ctx.actors.other, 'register', [2])
      const id = await taskAt(ctx, 'Committed')
      await ctx.test.mine({blocks: 1})
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimVerification', [id]), 'InsufficientFreeStake', [0n, parseEther('0.5')])
    })
  })

  describe('postVerdict', () => {
    it('reverts InvalidStatus(id, Committed) before a verifier claimed', async () => {
      const id = await taskAt(ctx, 'Committed')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', verdictArgs(id, true)), 'InvalidStatus', [id, Status.Committed])
    })
    it('reverts InvalidStatus(id, Verified) on a second verdict', async () => {
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', verdictArgs(id, false)), 'InvalidStatus', [id, Status.Verified])
    })
    it('reverts NotVerifier(id, caller) for another verifier', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier2, 'postVerdict', verdictArgs(id, true)), 'NotVerifier', [id, ctx.actors.verifier2.address])
    })
    it('reverts DeadlinePassed(id, deadline) after the verification timeout', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', verdictArgs(id, true)), 'DeadlinePassed', [id, deadline])
    })
    for (const [what, accepted, segment, replayHash] of [
      ['an acceptance naming a segment', true, 1, zeroHash],
      ['an acceptance naming a replay hash', true, 0, label('x')],
      ['a rejection of the segment past the last (checkpointCount - 1)', false, 4, label('x')],
      ['a rejection of segment 2^32 - 1', false, 2 ** 32 - 1, label('x')],
      ['a rejection without a replay hash', false, 0, zeroHash],
    ] as const) {
      it(`reverts InvalidRejectionClaim(id) for ${what}`, async () => {
        const id = await taskAt(ctx, 'Verifying')
        await expectRevert(
          marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, accepted, proof.report, 0n, segment, replayHash]),
          'InvalidRejectionClaim',
          [id],
        )
      })
    }
  })

  describe('commitChallenge', () => {
    const challenge = (id: bigint, segment = 1, claim: Hex = claimed, by = wb()) => marketWrite(ctx, by, 'commitChallenge', challengeCommitArgs(id, by.address, segment, claim))
    it('reverts InvalidStatus(id, Verifying) before the verdict', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(challenge(id), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts WrongVerdict(id, false) on a rejected verdict', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await expectRevert(challenge(id), 'WrongVerdict', [id, false])
    })
    it('reverts NotRegistered(account, WHISTLEBLOWER) without the role', async () => {
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(challenge(id, 1, claimed, ctx.actors.verifier2), 'NotRegistered', [ctx.actors.verifier2.address, WHISTLEBLOWER])
    })
    it('reverts PartyCannotChallenge(id, caller) for the task solver or verifier holding the role', async () => {
      const {solver, verifier} = ctx.actors
      for (const party of [solver, verifier]) await registryWrite(ctx, party, 'register', [WHISTLEBLOWER])
      const id = await taskAt(ctx, 'Verified')
      for (const party of [solver, verifier]) await expectRevert(challenge(id, 1, claimed, party), 'PartyCannotChallenge', [id, party.address])
    })
    it('reverts ChallengeWindowClosed(id, endBlock) in the block after the window', async () => {
      const id = await taskAt(ctx, 'Verified')
      const {challengeEndBlock} = await getTask(ctx, id)
      await mineTo(ctx, challengeEndBlock)
      await expectRevert(challenge(id), 'ChallengeWindowClosed', [id, challengeEndBlock])
    })
    it('reverts ZeroCommitment(id) for a zero commitment', async () => {
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(marketWrite(ctx, wb(), 'commitChallenge', [id, zeroHash, '0x']), 'ZeroCommitment', [id])
    })
    it('reverts AlreadyChallenged(id, whistleblower) for a second commitment by the same whistleblower (any claim)', async () => {
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, 1)
      await expectRevert(challenge(id, 2), 'AlreadyChallenged', [id, wb().address])
    })
    it('reverts ChallengeQueueFull(id, maxChallengers) once maxChallengers have committed', async () => {
      await setParams({maxChallengers: 2})
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, 0, claimed, ctx.extra.wb1)
      await challenge(id, 1, claimed, ctx.extra.wb2)
      await expectRevert(challenge(id, 2, claimed, ctx.extra.wb3), 'ChallengeQueueFull', [id, 2])
    })
    it('bubbles InsufficientFreeStake(available, requested) for a whistleblower that cannot cover the deposit', async () => {
      await registryWrite(ctx, ctx.actors.other, 'register', [WHISTLEBLOWER], {value: parseEther('0.1')})
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(challenge(id, 1, claimed, ctx.actors.other), 'InsufficientFreeStake', [parseEther('0.1'), parseEther('0.2')])
    })
  })

  describe('openChallenge', () => {
    const open = (id: bigint, segment = 1, claim: Hex = claimed, by = wb(), salt: Hex = testSalt) => marketWrite(ctx, by, 'openChallenge', openArgs(id, proof, segment, claim, salt))
    /** A Verified task on which wb() committed to (segment, claim), with the head at the end of the challenge window. */
    async function committed(segment = 1, claim: Hex = claimed): Promise<bigint> {
      const id = await taskAt(ctx, 'Verified')
      await marketWrite(ctx, wb(), 'commitChallenge', challengeCommitArgs(id, wb().address, segment, claim))
      await toOpenWindow(ctx, id)
      return id
    }
    it('reverts InvalidStatus(id, Verifying) before the verdict', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(open(id), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts OutsideOpenWindow(id, from, to) inside the challenge window and after the open window', async () => {
      const id = await taskAt(ctx, 'Verified')
      await marketWrite(ctx, wb(), 'commitChallenge', challengeCommitArgs(id, wb().address, 1, claimed))
      const {challengeEndBlock, openEndBlock} = await getTask(ctx, id)
      await expectRevert(open(id), 'OutsideOpenWindow', [id, challengeEndBlock + 1n, openEndBlock])
      await mineTo(ctx, openEndBlock)
      await expectRevert(open(id), 'OutsideOpenWindow', [id, challengeEndBlock + 1n, openEndBlock])
    })
    it('reverts NotCommitted(id, caller) for a whistleblower that did not commit', async () => {
      const id = await committed()
      await expectRevert(open(id, 1, claimed, ctx.extra.wb2), 'NotCommitted', [id, ctx.extra.wb2.address])
    })
    it('reverts CommitmentMismatch(id, caller) for another segment, claim or salt than committed', async () => {
      const id = await committed()
      await expectRevert(open(id, 2), 'CommitmentMismatch', [id, wb().address])
      await expectRevert(open(id, 1, label('another claim')), 'CommitmentMismatch', [id, wb().address])
      await expectRevert(open(id, 1, claimed, wb(), label('another salt')), 'CommitmentMismatch', [id, wb().address])
    })
    it('reverts AlreadyOpened(id, caller) for a second opening', async () => {
      const id = await committed()
      await open(id)
      await expectRevert(open(id), 'AlreadyOpened', [id, wb().address])
    })
    it('reverts InvalidChallengeClaim(id) for a committed zero claim or a claim equal to the committed end hash', async () => {
      for (const claim of [zeroHash, proof.checkpoints[2]!]) {
        const id = await committed(1, claim)
        await expectRevert(open(id, 1, claim), 'InvalidChallengeClaim', [id])
      }
    })
    it('reverts InvalidSegment(id, segment) for segment checkpointCount - 1 and above', async () => {
      for (const segment of [4, 5, 2 ** 32 - 1]) {
        const id = await committed(segment)
        const args = openArgs(id, proof, 3, claimed)
        await expectRevert(marketWrite(ctx, wb(), 'openChallenge', [id, segment, ...args.slice(2)] as never), 'InvalidSegment', [id, segment])
      }
    })
    it('reverts InvalidMerkleProof(id, index) for a start or end checkpoint (or proof) not in the committed tree', async () => {
      const id = await committed()
      const [, segment, claim, salt, startHash, startProof, endHash, endProof] = openArgs(id, proof, 1, claimed)
      const other = makeProof('other')
      const bad = (args: readonly unknown[]) => marketWrite(ctx, wb(), 'openChallenge', args as never)
      await expectRevert(bad([id, segment, claim, salt, other.checkpoints[1], startProof, endHash, endProof]), 'InvalidMerkleProof', [id, 1n])
      await expectRevert(bad([id, segment, claim, salt, startHash, startProof, other.checkpoints[2], endProof]), 'InvalidMerkleProof', [id, 2n])
      // The right hashes with a proof of another index, a truncated proof, and one with an extra sibling.
      await expectRevert(bad([id, segment, claim, salt, startHash, endProof, endHash, endProof]), 'InvalidMerkleProof', [id, 1n])
      await expectRevert(bad([id, segment, claim, salt, startHash, startProof.slice(1), endHash, endProof]), 'InvalidMerkleProof', [id, 1n])
      await expectRevert(bad([id, segment, claim, salt, startHash, startProof, endHash, [...endProof, zeroHash]]), 'InvalidMerkleProof', [id, 2n])
      // Swapped start and end.
      await expectRevert(bad([id, segment, claim, salt, endHash, endProof, startHash, startProof]), 'InvalidMerkleProof', [id, 1n])
    })
  })

  describe('disputeRejection', () => {
    const dispute = (id: bigint, by = ctx.actors.solver, p: Proof = proof) => marketWrite(ctx, by, 'disputeRejection', disputeArgs(id, p, rejection.segment))
    it('reverts InvalidStatus(id, Verifying) before the verdict', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(dispute(id), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts WrongVerdict(id, true) on an accepted verdict', async () => {
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(dispute(id), 'WrongVerdict', [id, true])
    })
    it('reverts NotSolver(id, caller) for anyone but the solver', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await expectRevert(dispute(id, ctx.actors.other), 'NotSolver', [id, ctx.actors.other.address])
    })
    it('reverts ChallengeWindowClosed(id, endBlock) after the window', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      const {challengeEndBlock} = await getTask(ctx, id)
      await mineTo(ctx, challengeEndBlock)
      await expectRevert(dispute(id), 'ChallengeWindowClosed', [id, challengeEndBlock])
    })
    it('reverts DisputeAlreadyFiled(id) the second time', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await dispute(id)
      await expectRevert(dispute(id), 'DisputeAlreadyFiled', [id])
    })
    it('reverts InvalidMerkleProof(id, index) for checkpoints not in the committed tree', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await expectRevert(dispute(id, ctx.actors.solver, makeProof('other')), 'InvalidMerkleProof', [id, BigInt(rejection.segment)])
    })
  })

  describe('revealForcedError', () => {
    const honest = makeProof('honest for real')
    const published = makeProof('forced publication')
    /** A forced task (forcedErrorBps 10000) published wrong, verified with `accepted`, in its reveal window. */
    async function forcedTask(accepted = true, options: {toWindow?: boolean} = {}): Promise<bigint> {
      await setParams({forcedErrorBps: 10000})
      const id = await taskAt(ctx, 'Verified', {accepted, published, honest})
      if (options.toWindow ?? true) await toRevealWindow(ctx, id)
      return id
    }
    const reveal = async (id: bigint, overrides: {secret?: Hex; seed?: Hex; root?: Hex; manifest?: Hex; by?: typeof ctx.actors.solver} = {}) =>
      marketWrite(
        ctx,
        overrides.by ?? ctx.actors.solver,
        'revealForcedError',
        await revealArgs(ctx, id, {root: overrides.root ?? honest.root, manifest: overrides.manifest ?? honest.manifest}, overrides),
      )
    it('reverts InvalidStatus(id, Verifying) before the verdict', async () => {
      await setParams({forcedErrorBps: 10000})
      const id = await taskAt(ctx, 'Verifying', {published, honest})
      await expectRevert(reveal(id), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts NotSolver(id, caller) for anyone but the solver', async () => {
      const id = await forcedTask()
      await expectRevert(reveal(id, {by: ctx.actors.verifier}), 'NotSolver', [id, ctx.actors.verifier.address])
    })
    it('reverts OutsideRevealWindow(id, from, to) in the challenge window, in the open window and after the reveal window', async () => {
      const id = await forcedTask(true, {toWindow: false})
      const {challengeEndBlock, openEndBlock, revealEndBlock} = await getTask(ctx, id)
      assert.equal(openEndBlock, challengeEndBlock + defaultProtocolParams.openWindowBlocks)
      await mineTo(ctx, challengeEndBlock - 1n)
      await expectRevert(reveal(id), 'OutsideRevealWindow', [id, openEndBlock + 1n, revealEndBlock])
      // The last block of the open window: whistleblowers are still opening what they committed to.
      await mineTo(ctx, openEndBlock - 1n)
      await expectRevert(reveal(id), 'OutsideRevealWindow', [id, openEndBlock + 1n, revealEndBlock])
      await mineTo(ctx, revealEndBlock)
      await expectRevert(reveal(id), 'OutsideRevealWindow', [id, openEndBlock + 1n, revealEndBlock])
    })
    it('reverts InvalidSecret(id) for a secret, a seed or an honest proof that does not open the commitment', async () => {
      const id = await forcedTask()
      await expectRevert(reveal(id, {secret: label('not the secret')}), 'InvalidSecret', [id])
      // The commit folded the secret's hash, the seed and the seal into one slot: a wrong seed opens nothing either,
      // so a solver cannot pick the seed whose coin it wants at the reveal.
      await expectRevert(reveal(id, {seed: label('another seed')}), 'InvalidSecret', [id])
      await expectRevert(reveal(id, {root: makeProof('x').root}), 'InvalidSecret', [id])
      await expectRevert(reveal(id, {manifest: label('x')}), 'InvalidSecret', [id])
      assert.equal((await reveal(id)).receipt.status, 'success')
    })
    it('reverts NotForcedError(id) when the coin did not come up', async () => {
      await setParams({forcedErrorBps: 0})
      const id = await taskAt(ctx, 'Verified', {published, honest})
      await toRevealWindow(ctx, id)
      await expectRevert(reveal(id), 'NotForcedError', [id])
    })
    it('reverts HonestRootUnchanged(id) when the sealed "honest" proof is the published one (or zero)', async () => {
      await setParams({forcedErrorBps: 10000})
      const same = await taskAt(ctx, 'Verified', {published, honest: published})
      await toRevealWindow(ctx, same)
      await expectRevert(reveal(same, {root: published.root, manifest: published.manifest}), 'HonestRootUnchanged', [same])
      const zero = {...honest, root: zeroHash}
      const sealedZero = await taskAt(ctx, 'Verified', {published, honest: zero})
      await toRevealWindow(ctx, sealedZero)
      await expectRevert(reveal(sealedZero, {root: zeroHash}), 'HonestRootUnchanged', [sealedZero])
    })
    it('reverts AlreadyRevealed(id) when the re-verified honest proof is verified again', async () => {
      const id = await forcedTask()
      await reveal(id)
      const {verifier2} = ctx.actors
      await ctx.test.mine({blocks: 1})
      await marketWrite(ctx, verifier2, 'claimVerification', [id])
      await marketWrite(ctx, verifier2, 'postVerdict', verdictArgs(id, true))
      await toRevealWindow(ctx, id)
      await expectRevert(reveal(id), 'AlreadyRevealed', [id])
    })
  })

  describe('settle', () => {
    it('reverts InvalidStatus(id, Verifying) before a verdict', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts InvalidStatus(id, Settled) the second time', async () => {
      const id = await taskAt(ctx, 'Verified')
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'InvalidStatus', [id, Status.Settled])
    })
    it('reverts InvalidStatus(id, Submitted) after a rejection reopened the task', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'InvalidStatus', [id, Status.Submitted])
    })
    it('reverts SettlementNotReady(id, revealEndBlock) inside the challenge window and inside the reveal window', async () => {
      const id = await taskAt(ctx, 'Verified')
      const {revealEndBlock} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'SettlementNotReady', [id, revealEndBlock])
      await toRevealWindow(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'SettlementNotReady', [id, revealEndBlock])
    })
    it('reverts DisputeInProgress(id, disputeId) while the game is being played', async () => {
      const id = await taskAt(ctx, 'Verified')
      await commitChallenge(ctx, wb(), id, proof, 1, claimed)
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      const {activeDispute} = await getTask(ctx, id)
      assert.ok(activeDispute > 0n)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'DisputeInProgress', [id, activeDispute])
    })
    it('reverts GameNotSet when a challenge must be played on a market without a game', async () => {
      const {solver, verifier} = ctx.actors
      const registry = await deployBareRegistry(ctx)
      const {market, book} = await deployMarket(ctx, registry, {wireRegistry: true})
      await registerSolver(ctx, solver, parseEther('2'), {registry, book})
      await registryWrite(ctx, verifier, 'register', [2], {value: parseEther('2'), address: registry})
      await registryWrite(ctx, wb(), 'register', [WHISTLEBLOWER], {value: parseEther('2'), address: registry})
      const {id} = await submitTask(ctx, {market})
      await driveTask(ctx, id, 'Verified', {market})
      await commitChallenge(ctx, wb(), id, proof, 1, claimed, market)
      await passWindows(ctx, id, market)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id], {address: market}), 'GameNotSet', [])
    })
  })

  describe('expire', () => {
    for (const stage of ['Submitted', 'Claimed', 'Committed', 'Verifying'] as const) {
      it(`reverts DeadlineNotReached(id, deadline) for a ${stage} task still in time`, async () => {
        const id = await taskAt(ctx, stage)
        const {deadline} = await getTask(ctx, id)
        await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [id]), 'DeadlineNotReached', [id, deadline])
      })
    }
    it('reverts NotExpirable(id, Verified) for a verified task, even long after its windows', async () => {
      const id = await taskAt(ctx, 'Verified')
      await advanceTime(ctx, 10_000)
      await passWindows(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [id]), 'NotExpirable', [id, Status.Verified])
    })
    it('reverts NotExpirable(id, Settled)', async () => {
      const id = await taskAt(ctx, 'Verified')
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [id]), 'NotExpirable', [id, Status.Settled])
    })
    it('reverts NotExpirable(id, Expired) the second time', async () => {
      const id = await taskAt(ctx, 'Submitted')
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      await marketWrite(ctx, ctx.actors.other, 'expire', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [id]), 'NotExpirable', [id, Status.Expired])
    })
  })

  describe('forcedErrorOf', () => {
    const forcedErrorOf = (id: bigint, secret: Hex) => readMarket(ctx, 'forcedErrorOf', [id, secret])
    it('reverts InvalidSecret(id) for a secret that does not open secretHash', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await ctx.test.mine({blocks: 2})
      await expectRevert(forcedErrorOf(id, label('nope')), 'InvalidSecret', [id])
    })
    it('reverts InvalidStatus(id, status) unless the task is Claimed: nobody has a coin before the claim, and the commit folds the seed and seal into the commitment', async () => {
      const {id: open} = await submitTask(ctx)
      await expectRevert(forcedErrorOf(open, zeroHash), 'InvalidStatus', [open, Status.Submitted])
      const committed = await taskAt(ctx, 'Committed')
      await expectRevert(forcedErrorOf(committed, defaultSecret), 'InvalidStatus', [committed, Status.Committed])
    })
    it('reverts RandomnessNotReady(id, claimBlock + 2) while the seed block is the head', async () => {
      const id = await taskAt(ctx, 'Claimed')
      const {claimBlock} = await getTask(ctx, id)
      await expectRevert(forcedErrorOf(id, defaultSecret), 'RandomnessNotReady', [id, claimBlock + 2n])
    })
  })

  it('a second deployment with other parameters is independent', async () => {
    const deployed = await deployContracts({
      publicClient: ctx.publicClient,
      walletClient: ctx.actors.deployer.wallet,
      params: {treasury: ctx.actors.treasury.address, config: {solverStake: 7n}, market: {priceFloor: 1n}},
    })
    ctx.systems.push({
      registry: deployed.registry,
      market: deployed.market,
      config: deployed.config,
      game: deployed.game,
      thresholds: deployed.thresholds,
      book: deployed.book,
      disputes: deployed.disputes,
    })
    await registerSolver(ctx, ctx.actors.solver, 10n, {registry: deployed.registry, book: deployed.book, offer: {ask: 1n, capacity: 1}})
    const {id} = await submitTask(ctx, {market: deployed.market})
    await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash], {address: deployed.market})
    assert.equal((await getTask(ctx, id, deployed.market)).solverLocked, 7n)
    await expectRevert(
      readMarket(ctx, 'getTask', [2n], deployed.market),
      'TaskNotFound',
      [2n],
    )
  })
})
