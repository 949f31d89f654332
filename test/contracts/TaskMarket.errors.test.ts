import assert from 'node:assert/strict'

import {maxUint256, parseEther, zeroAddress, zeroHash} from 'viem'

import {deployContracts} from '../../src/chain/deployContracts.js'
import {taskMarketAbi, taskMarketBytecode} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  deployBareRegistry,
  expectDeployRevert,
  expectRevert,
  getTask,
  marketWrite,
  registryWrite,
  useChain,
} from './helpers/chain.js'
import {defaultTask, proof, Status, submitTask, taskAt} from './helpers/tasks.js'

const MAX_TIMEOUT = 365n * 24n * 3600n

/** One test per custom error path of TaskMarket (registry errors that bubble through it included). */
describe('TaskMarket errors (on anvil)', () => {
  const ctx = useChain()
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

  describe('constructor', () => {
    const deploy = (args: readonly [`0x${string}`, `0x${string}`, bigint, bigint, bigint]) =>
      ctx.actors.deployer.wallet.deployContract({abi: taskMarketAbi, bytecode: taskMarketBytecode, args})

    it('reverts ZeroAddress for a zero registry', async () => {
      await expectDeployRevert(deploy([zeroAddress, ctx.actors.treasury.address, 1n, 1n, 5n]), taskMarketAbi, 'ZeroAddress', [])
    })
    it('reverts ZeroAddress for a zero treasury', async () => {
      await expectDeployRevert(deploy([ctx.system.registry, zeroAddress, 1n, 1n, 5n]), taskMarketAbi, 'ZeroAddress', [])
    })
    it('reverts InvalidTimeout for a challenge window above MAX_TIMEOUT', async () => {
      await expectDeployRevert(deploy([ctx.system.registry, ctx.actors.treasury.address, 1n, 1n, MAX_TIMEOUT + 1n]), taskMarketAbi, 'InvalidTimeout', [])
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
    for (const fn of ['claimTask', 'claimVerification', 'settle', 'expire'] as const) {
      it(`${fn} reverts TaskNotFound for id 0 and for taskCount + 1`, async () => {
        await submitTask(ctx)
        await expectRevert(marketWrite(ctx, ctx.actors.solver, fn, [0n]), 'TaskNotFound', [0n])
        await expectRevert(marketWrite(ctx, ctx.actors.solver, fn, [2n]), 'TaskNotFound', [2n])
      })
    }
    it('commitProof and postVerdict revert TaskNotFound', async () => {
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [7n, proof.root, proof.manifest, 3]), 'TaskNotFound', [7n])
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [7n, true, proof.report, proof.distance]), 'TaskNotFound', [7n])
    })
    it('getTask reverts TaskNotFound', async () => {
      await expectRevert(
        ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'getTask', args: [1n]}),
        'TaskNotFound',
        [1n],
      )
    })
  })

  describe('claimTask', () => {
    it('reverts InvalidStatus(id, Claimed) when already claimed', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id]), 'InvalidStatus', [id, Status.Claimed])
    })
    it('reverts NotRegistered(account, SOLVER) for an unregistered account', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id]), 'NotRegistered', [ctx.actors.other.address, 1])
    })
    it('reverts NotRegistered(account, SOLVER) for a verifier-only account', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimTask', [id]), 'NotRegistered', [ctx.actors.verifier.address, 1])
    })
    it('reverts DeadlinePassed(id, deadline) after the claim timeout', async () => {
      const {id} = await submitTask(ctx)
      await advanceTime(ctx, defaultTask.claimTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id]), 'DeadlinePassed', [id, deadline])
    })
    it('reverts SolverRejected(id, solver) when a solver rejected on the task tries to claim it again', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await advanceTime(ctx, 6)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      assert.equal((await getTask(ctx, id)).status, Status.Submitted)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id]), 'SolverRejected', [id, ctx.actors.solver.address])
      // Only that task: the same solver still claims others.
      const {id: next} = await submitTask(ctx)
      await marketWrite(ctx, ctx.actors.solver, 'claimTask', [next])
    })
    it('reverts EscrowExhausted(id, escrow, required) when rejection shortfalls left too little escrow for both rewards (1 wei short)', async () => {
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('1')})
      // verifierReward 1.5 ether > solverStake 1 ether: the rejection pays 0.5 ether of the escrow, leaving 1 wei
      // less than solverReward + verifierReward = 2 ether.
      const rewards = {solverReward: parseEther('0.5'), verifierReward: parseEther('1.5')}
      const id = await taskAt(ctx, 'Verified', {accepted: false, escrow: parseEther('2.5') - 1n, ...rewards})
      await advanceTime(ctx, 6)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id]), 'EscrowExhausted', [id, parseEther('2') - 1n, parseEther('2')])
      // With exactly enough left, the next solver claims.
      const exact = await taskAt(ctx, 'Verified', {accepted: false, escrow: parseEther('2.5'), ...rewards})
      await advanceTime(ctx, 6)
      await marketWrite(ctx, ctx.actors.other, 'settle', [exact])
      assert.equal((await getTask(ctx, exact)).escrow, parseEther('2'))
      await marketWrite(ctx, ctx.actors.other, 'claimTask', [exact])
      assert.equal((await getTask(ctx, exact)).status, Status.Claimed)
    })
    it('bubbles the registry InsufficientFreeStake(available, requested) for a solver without enough stake', async () => {
      await registryWrite(ctx, ctx.actors.other, 'register', [1], {value: parseEther('0.25')})
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'claimTask', [id]), 'InsufficientFreeStake', [parseEther('0.25'), parseEther('1')])
    })
    it('bubbles the registry NotMarket when the registry is wired to another market', async () => {
      const registry = await deployBareRegistry(ctx, {market: ctx.actors.marketEoa})
      await registryWrite(ctx, ctx.actors.solver, 'register', [1], {value: parseEther('2'), address: registry})
      const hash = await ctx.actors.deployer.wallet.deployContract({
        abi: taskMarketAbi,
        bytecode: taskMarketBytecode,
        args: [registry, ctx.actors.treasury.address, parseEther('1'), parseEther('1'), 5n],
      })
      const receipt = await ctx.publicClient.waitForTransactionReceipt({hash})
      const market = receipt.contractAddress!
      ctx.systems.push({registry, market})
      const {id} = await submitTask(ctx, {market})
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [id], {address: market}), 'NotMarket', [])
    })
  })

  describe('commitProof', () => {
    it('reverts InvalidStatus(id, Submitted) before a claim', async () => {
      const {id} = await submitTask(ctx)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, 3]), 'InvalidStatus', [
        id,
        Status.Submitted,
      ])
    })
    it('reverts InvalidStatus(id, Committed) on a second commit', async () => {
      const id = await taskAt(ctx, 'Committed')
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, 3]), 'InvalidStatus', [
        id,
        Status.Committed,
      ])
    })
    it('reverts NotSolver(id, caller) for anyone but the solver', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'commitProof', [id, proof.root, proof.manifest, 3]), 'NotSolver', [
        id,
        ctx.actors.verifier.address,
      ])
    })
    it('reverts DeadlinePassed(id, deadline) after the training timeout', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, 3]), 'DeadlinePassed', [
        id,
        deadline,
      ])
    })
    it('reverts ZeroProofRoot for a zero proof root', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, zeroHash, proof.manifest, 3]), 'ZeroProofRoot', [])
    })
    it('reverts ZeroProofRoot for a zero manifest hash', async () => {
      const id = await taskAt(ctx, 'Claimed')
      await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, zeroHash, 3]), 'ZeroProofRoot', [])
    })
    for (const count of [0, 1]) {
      it(`reverts TooFewCheckpoints(${count})`, async () => {
        const id = await taskAt(ctx, 'Claimed')
        await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, count]), 'TooFewCheckpoints', [count])
      })
    }
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
    it('reverts DeadlinePassed(id, deadline) after the verification timeout', async () => {
      const id = await taskAt(ctx, 'Committed')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'DeadlinePassed', [
        id,
        deadline,
      ])
    })
    it('reverts RandomnessNotReady(id, commitBlock + 2) in the block right after the commit', async () => {
      const id = await taskAt(ctx, 'Committed')
      const {commitBlock} = await getTask(ctx, id)
      assert.equal(await ctx.publicClient.getBlockNumber(), commitBlock)
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
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, true, proof.report, proof.distance]), 'InvalidStatus', [id, Status.Committed])
    })
    it('reverts InvalidStatus(id, Verified) on a second verdict', async () => {
      const id = await taskAt(ctx, 'Verified')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, false, proof.report, proof.distance]), 'InvalidStatus', [id, Status.Verified])
    })
    it('reverts NotVerifier(id, caller) for another verifier', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(marketWrite(ctx, ctx.actors.verifier2, 'postVerdict', [id, true, proof.report, proof.distance]), 'NotVerifier', [
        id,
        ctx.actors.verifier2.address,
      ])
    })
    it('reverts DeadlinePassed(id, deadline) after the verification timeout', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await advanceTime(ctx, defaultTask.verificationTimeout + 1n)
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'postVerdict', [id, true, proof.report, proof.distance]), 'DeadlinePassed', [
        id,
        deadline,
      ])
    })
  })

  describe('settle', () => {
    it('reverts InvalidStatus(id, Verifying) before a verdict', async () => {
      const id = await taskAt(ctx, 'Verifying')
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'InvalidStatus', [id, Status.Verifying])
    })
    it('reverts InvalidStatus(id, Settled) the second time', async () => {
      const id = await taskAt(ctx, 'Verified')
      await advanceTime(ctx, 6)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'InvalidStatus', [id, Status.Settled])
    })
    it('reverts InvalidStatus(id, Submitted) after a rejection reopened the task', async () => {
      const id = await taskAt(ctx, 'Verified', {accepted: false})
      await advanceTime(ctx, 6)
      await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'InvalidStatus', [id, Status.Submitted])
    })
    it('reverts ChallengeWindowOpen(id, endsAt) inside the challenge window', async () => {
      const id = await taskAt(ctx, 'Verified')
      const {deadline} = await getTask(ctx, id)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'settle', [id]), 'ChallengeWindowOpen', [id, deadline])
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
    it('reverts NotExpirable(id, Verified) for a verified task, even long after its window', async () => {
      const id = await taskAt(ctx, 'Verified')
      await advanceTime(ctx, 10_000)
      await expectRevert(marketWrite(ctx, ctx.actors.other, 'expire', [id]), 'NotExpirable', [id, Status.Verified])
    })
    it('reverts NotExpirable(id, Settled)', async () => {
      const id = await taskAt(ctx, 'Verified')
      await advanceTime(ctx, 6)
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

  it('a second deployment with other parameters is independent', async () => {
    const deployed = await deployContracts({
      publicClient: ctx.publicClient,
      walletClient: ctx.actors.deployer.wallet,
      params: {treasury: ctx.actors.treasury.address, solverStake: 7n},
    })
    ctx.systems.push({registry: deployed.registry, market: deployed.market})
    const stake = await ctx.publicClient.readContract({address: deployed.market, abi: taskMarketAbi, functionName: 'solverStake'})
    assert.equal(stake, 7n)
    await expectRevert(
      ctx.publicClient.readContract({address: deployed.market, abi: taskMarketAbi, functionName: 'getTask', args: [1n]}),
      'TaskNotFound',
      [1n],
    )
  })
})
