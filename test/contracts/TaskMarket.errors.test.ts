import assert from 'node:assert/strict'

import {type Address, getAddress, type Hex, maxUint256, parseEther, zeroAddress, zeroHash} from 'viem'

import {defaultProtocolParams, deployContracts} from '../../src/chain/deployContracts.js'
import {taskMarketAbi, taskMarketBytecode} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  configWrite,
  deployBareRegistry,
  expectDeployRevert,
  expectRevert,
  getTask,
  marketWrite,
  registryWrite,
  useChain,
} from './helpers/chain.js'
import {
  challengeArgs,
  commitArgs,
  defaultSecret,
  defaultTask,
  disputeArgs,
  driveTask,
  label,
  makeProof,
  mineTo,
  passWindows,
  type Proof,
  proof,
  rejection,
  secretHashOf,
  Status,
  submitTask,
  taskAt,
  toRevealWindow,
  verdictArgs,
} from './helpers/tasks.js'

const MAX_TIMEOUT = 365n * 24n * 3600n
const WHISTLEBLOWER = 4
const claimed = label('whistleblower replay')

/** One test per custom error path of TaskMarket (registry errors that bubble through it included). */
describe('TaskMarket errors (on anvil)', () => {
  const ctx = useChain({stake: parseEther('20'), disputeActors: true})
  const submit = (overrides: Partial<typeof defaultTask>) => {
    const t = {...defaultTask, ...overrides}
    return marketWrite(
      ctx,
      ctx.actors.submitter,
      'submitTask',
      [t.specHash, t.solverReward, t.verifierReward, t.claimTimeout, t.trainingTimeout, t.verificationTimeout],
      {value: t.escrow},
    )
  }
  const setParams = (change: Partial<typeof defaultProtocolParams>) =>
    configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, ...change}])
  /** A market deployed by `deployer` on the shared registry and config, with no game set. */
  async function bareMarket(): Promise<Address> {
    const hash = await ctx.actors.deployer.wallet.deployContract({
      abi: taskMarketAbi,
      bytecode: taskMarketBytecode,
      args: [ctx.system.registry, ctx.actors.treasury.address, ctx.system.config],
    })
    const address = (await ctx.publicClient.waitForTransactionReceipt({hash})).contractAddress!
    ctx.systems.push({registry: ctx.system.registry, market: address})
    return address
  }
  const wb = () => ctx.extra.wb1

  describe('constructor, setGame, fundJackpot', () => {
    const deploy = (args: readonly [Address, Address, Address]) =>
      ctx.actors.deployer.wallet.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args})

    for (const [which, index] of [
      ['registry', 0],
      ['treasury', 1],
      ['config', 2],
    ] as const) {
      it(`the constructor reverts ZeroAddress for a zero ${which}`, async () => {
        const args: [Address, Address, Address] = [ctx.system.registry, ctx.actors.treasury.address, ctx.system.config]
        args[index] = zeroAddress
        await expectDeployRevert(deploy(args), taskMarketAbi, 'ZeroAddress', [])
      })
    }
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
        ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'jackpotShares', args: [1n, 256n]}),
        'TooManyCatchers',
        [256n],
      )
    })
  })

  describe('submitTask', () => {
    it('reverts InsufficientEscrow(provided, required) below solverReward + verifierReward', async () => {
      await expectRevert(submit({escrow: parseEther('2') - 1n}), 'InsufficientEscrow', [parseEther('2') - 1n, parseEther('2')])
    })
    it('reverts InsufficientEscrow with a saturated requirement when the rewards overflow', async () => {
      await expectRevert(submit({solverReward: maxUint256, verifierReward: 1n, escrow: 1n}), 'InsufficientEscrow', [1n, maxUint256])
    })
    it('reverts ZeroSpecHash', async () => {
      await expectRevert(submit({specHash: zeroHash}), 'ZeroSpecHash', [])
    })
    for (const field of ['claimTimeout', 'trainingTimeout', 'verificationTimeout'] as const) {
      it(`reverts InvalidTimeout for a zero ${field}`, async () => {
        await expectRevert(submit({[field]: 0n}), 'InvalidTimeout', [])
      })
      it(`reverts InvalidTimeout for a ${field} above MAX_TIMEOUT (and accepts MAX_TIMEOUT)`, async () => {
        await expectRevert(submit({[field]: MAX_TIMEOUT + 1n}), 'InvalidTimeout', [])
        const ok = await submit({[field]: MAX_TIMEOUT})
        assert.equal(ok.receipt.status, 'success')
      })
    }
  })

  describe('unknown tasks', () => {
    for (const fn of ['claimVerification', 'settle', 'expire'] as const) {
      it(`${fn} reverts TaskNotFound for id 0 and for taskCount + 1`, async () => {
        await submitTask(ctx)
        await expectRevert(marketWrite(ctx, ctx.actors.solver, fn, [0n]), 'TaskNotFound', [0n])
        await expectRevert(marketWrite(ctx, ctx.actors.solver, fn, [2n]), 'TaskNotFound', [2n])
      })
    }
    it('claimTask, commitProof, postVerdict, challenge, disputeRejection and revealForcedError revert TaskNotFound', async () => {
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [7n, zeroHash]), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(7n)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', verdictArgs(7n, true)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, wb(), 'challenge', challengeArgs(7n, proof, 0, claimed)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'disputeRejection', disputeArgs(7n, proof, 0)), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'revealForcedError', [7n, defaultSecret, proof.root, proof.manifest]), 'TaskNotFound', [7n])
    })
    it('getTask, challengesOf and forcedErrorOf revert TaskNotFound', async () => {
      // Each call is made only when awaited: an eager rejected promise would surface as an uncaught error.
      for (const call of [
        () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'getTask', args: [1n]}),
        () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'challengesOf', args: [1n]}),
        () => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'forcedErrorOf', args: [1n, defaultSecret]}),
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
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('1')})
      // verifierReward 1.5 ether > solverStake 1 ether: the rejection pays 0.5 ether of the escrow, leaving 1 wei
      // less than solverReward + verifierReward = 2 ether.
      const rewards = {solverReward: parseEther('0.5'), verifierReward: parseEther('1.5')}
      const id = await taskAt(ctx, 'Verified', {accepted: false, escrow: parseEther('2.5') - 1n, ...rewards})
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id, zeroHash]), 'EscrowExhausted', [id, parseEther('2') - 1n, parseEther('2')])
      // With exactly enough left, the next solver claims.
      const exact = await taskAt(ctx, 'Verified', {accepted: false, escrow: parseEther('2.5'), ...rewards})
      await passWindows(ctx, exact)
      await marketWrite(ctx, ctx.actors.other, 'settle', [exact])
      assert.equal((await getTask(ctx, exact)).escrow, parseEther('2'))
      await marketWrite(ctx, ctx.actors.other, 'claimTask', [exact, zeroHash])
      assert.equal((await getTask(ctx, exact)).status, Status.Claimed)
    })
    it('bubbles the registry InsufficientFreeStake(available, requested) for a solver without enough stake', async () => {
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('0.25')})
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id, zeroHash]), 'InsufficientFreeStake', [parseEther('0.25'), parseEther('1')])
    })
    it('bubbles the registry NotMarket when the registry is wired to another market', async () => {
      const registry = await deployBareRegistry(ctx, {market: ctx.actors.marketEoa})
      await registryWrite(ctx, ctx.actors.solver, 'register', [1], {value: parseEther('2'), address: registry})
      const hash = await ctx.actors.deployer.wallet.deployContract({
        abi: taskMarketAbi,
        bytecode: taskMarketBytecode,
        args: [registry, ctx.actors.treasury.address, ctx.system.config],
      })
      const market = (await ctx.publicClient.waitForTransactionReceipt({hash})).contractAddress!
      ctx.systems.push({registry, market})
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

  describe('challenge', () => {
    const challenge = (id: bigint, segment = 1, claim: Hex = claimed, by = wb()) => marketWrite(ctx, by, 'challenge', challengeArgs(id, proof, segment, claim))
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
    it('reverts InvalidChallengeClaim(id) for a zero claim or a claim equal to the committed end hash', async () => {
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(challenge(id, 1, zeroHash), 'InvalidChallengeClaim', [id])
      await expectRevert(challenge(id, 1, proof.checkpoints[2]!), 'InvalidChallengeClaim', [id])
    })
    it('reverts InvalidSegment(id, segment) for segment checkpointCount - 1 and above', async () => {
      const id = await taskAt(ctx, 'Verified')
      for (const segment of [4, 5, 2 ** 32 - 1]) {
        const args = challengeArgs(id, proof, 3, claimed)
        await expectRevert(marketWrite(ctx, wb(), 'challenge', [id, segment, ...args.slice(2)] as never), 'InvalidSegment', [id, segment])
      }
    })
    it('reverts InvalidMerkleProof(id, index) for a start or end checkpoint (or proof) not in the committed tree', async () => {
      const id = await taskAt(ctx, 'Verified')
      const [, segment, claim, startHash, startProof, endHash, endProof] = challengeArgs(id, proof, 1, claimed)
      const other = makeProof('other')
      const bad = (args: readonly unknown[]) => marketWrite(ctx, wb(), 'challenge', args as never)
      await expectRevert(bad([id, segment, claim, other.checkpoints[1], startProof, endHash, endProof]), 'InvalidMerkleProof', [id, 1n])
      await expectRevert(bad([id, segment, claim, startHash, startProof, other.checkpoints[2], endProof]), 'InvalidMerkleProof', [id, 2n])
      // The right hashes with a proof of another index, a truncated proof, and one with an extra sibling.
      await expectRevert(bad([id, segment, claim, startHash, endProof, endHash, endProof]), 'InvalidMerkleProof', [id, 1n])
      await expectRevert(bad([id, segment, claim, startHash, startProof.slice(1), endHash, endProof]), 'InvalidMerkleProof', [id, 1n])
      await expectRevert(bad([id, segment, claim, startHash, startProof, endHash, [...endProof, zeroHash]]), 'InvalidMerkleProof', [id, 2n])
      // Swapped start and end.
      await expectRevert(bad([id, segment, claim, endHash, endProof, startHash, startProof]), 'InvalidMerkleProof', [id, 1n])
    })
    it('reverts AlreadyChallenged(id, whistleblower) for a second challenge by the same whistleblower (any segment)', async () => {
      const id = await taskAt(ctx, 'Verified')
      await challenge(id, 1)
      await expectRevert(challenge(id, 2), 'AlreadyChallenged', [id, wb().address])
    })
    it('reverts ChallengeQueueFull(id, maxChallengers) once maxChallengers are queued', async () => {
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
    const reveal = (id: bigint, overrides: {secret?: Hex; root?: Hex; manifest?: Hex; by?: typeof ctx.actors.solver} = {}) =>
      marketWrite(ctx, overrides.by ?? ctx.actors.solver, 'revealForcedError', [
        id,
        overrides.secret ?? defaultSecret,
        overrides.root ?? honest.root,
        overrides.manifest ?? honest.manifest,
      ])
    it('reverts InvalidStatus(id, Verifying) before the verdict', async () => {
      await setParams({forcedErrorBps: 10000})
      const id = await taskAt(ctx, 'Verifying', {published, honest})
      await expectRevert(reveal(id), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts NotSolver(id, caller) for anyone but the solver', async () => {
      const id = await forcedTask()
      await expectRevert(reveal(id, {by: ctx.actors.verifier}), 'NotSolver', [id, ctx.actors.verifier.address])
    })
    it('reverts OutsideRevealWindow(id, from, to) in the challenge window and after the reveal window', async () => {
      const id = await forcedTask(true, {toWindow: false})
      const {challengeEndBlock, revealEndBlock} = await getTask(ctx, id)
      await mineTo(ctx, challengeEndBlock - 1n)
      await expectRevert(reveal(id), 'OutsideRevealWindow', [id, challengeEndBlock + 1n, revealEndBlock])
      await mineTo(ctx, revealEndBlock)
      await expectRevert(reveal(id), 'OutsideRevealWindow', [id, challengeEndBlock + 1n, revealEndBlock])
    })
    it('reverts InvalidSecret(id) for a secret that does not open secretHash', async () => {
      const id = await forcedTask()
      await expectRevert(reveal(id, {secret: label('not the secret')}), 'InvalidSecret', [id])
    })
    it('reverts NotForcedError(id) when the coin did not come up', async () => {
      await setParams({forcedErrorBps: 0})
      const id = await taskAt(ctx, 'Verified', {published, honest})
      await toRevealWindow(ctx, id)
      await expectRevert(reveal(id), 'NotForcedError', [id])
    })
    it('reverts SealMismatch(id) for an honest proof other than the sealed one', async () => {
      const id = await forcedTask()
      await expectRevert(reveal(id, {root: makeProof('x').root}), 'SealMismatch', [id])
      await expectRevert(reveal(id, {manifest: label('x')}), 'SealMismatch', [id])
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
      await marketWrite(ctx, wb(), 'challenge', challengeArgs(id, proof, 1, claimed))
      await passWindows(ctx, id)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      const {activeDispute} = await getTask(ctx, id)
      assert.ok(activeDispute > 0n)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'DisputeInProgress', [id, activeDispute])
    })
    it('reverts GameNotSet when a challenge must be played on a market without a game', async () => {
      const {deployer, treasury, solver, verifier} = ctx.actors
      const registry = await deployBareRegistry(ctx)
      const hash = await deployer.wallet.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args: [registry, treasury.address, ctx.system.config]})
      const market = (await ctx.publicClient.waitForTransactionReceipt({hash})).contractAddress!
      ctx.systems.push({registry, market})
      await registryWrite(ctx, deployer, 'setMarket', [market], {address: registry})
      await registryWrite(ctx, solver, 'register', [1], {value: parseEther('2'), address: registry})
      await registryWrite(ctx, verifier, 'register', [2], {value: parseEther('2'), address: registry})
      await registryWrite(ctx, wb(), 'register', [WHISTLEBLOWER], {value: parseEther('2'), address: registry})
      const {id} = await submitTask(ctx, {market})
      await driveTask(ctx, id, 'Verified', {market})
      await marketWrite(ctx, wb(), 'challenge', challengeArgs(id, proof, 1, claimed), {address: market})
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
    const forcedErrorOf = (id: bigint, secret: Hex) =>
      ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'forcedErrorOf', args: [id, secret]})
    it('reverts InvalidSecret(id) for a secret that does not open secretHash, and for a task nobody claimed', async () => {
      const id = await taskAt(ctx, 'Committed')
      await expectRevert(forcedErrorOf(id, label('nope')), 'InvalidSecret', [id])
      const {id: open} = await submitTask(ctx)
      // secretHash is 0 until a claim: not even a secret hashing to 0 may ask.
      await expectRevert(forcedErrorOf(open, zeroHash), 'InvalidSecret', [open])
      assert.notEqual(secretHashOf(zeroHash), zeroHash)
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
      params: {treasury: ctx.actors.treasury.address, config: {solverStake: 7n}},
    })
    ctx.systems.push({registry: deployed.registry, market: deployed.market, config: deployed.config, game: deployed.game, thresholds: deployed.thresholds})
    await registryWrite(ctx, ctx.actors.solver, 'register', [1], {value: 10n, address: deployed.registry})
    const {id} = await submitTask(ctx, {market: deployed.market})
    await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash], {address: deployed.market})
    assert.equal((await getTask(ctx, id, deployed.market)).solverLocked, 7n)
    await expectRevert(
      ctx.publicClient.readContract({address: deployed.market, abi: taskMarketAbi, functionName: 'getTask', args: [2n]}),
      'TaskNotFound',
      [2n],
    )
  })
})
