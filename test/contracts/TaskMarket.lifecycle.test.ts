import assert from 'node:assert/strict'

import {encodeAbiParameters, getAddress, keccak256, maxUint256, parseEther, zeroHash} from 'viem'

import {taskMarketAbi} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  expectEvents,
  expectRevert,
  flowOf,
  getTask,
  latestTimestamp,
  marketWrite,
  registryWrite,
  stakeOf,
  useChain,
} from './helpers/chain.js'
import {defaultTask, proof, Status, submitTask, taskAt} from './helpers/tasks.js'

describe('TaskMarket lifecycle (on anvil)', () => {
  const ctx = useChain({params: {solverStake: parseEther('1'), verifierStake: parseEther('0.5'), challengeWindow: 5n}})
  const read = <const fn extends 'registry' | 'treasury' | 'solverStake' | 'verifierStake' | 'challengeWindow' | 'taskCount' | 'totalEscrow'>(
    functionName: fn,
  ) => ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName})

  it('exposes its configuration', async () => {
    assert.equal(getAddress(await read('registry')), getAddress(ctx.system.registry))
    assert.equal(await read('treasury'), ctx.actors.treasury.address)
    assert.equal(await read('solverStake'), parseEther('1'))
    assert.equal(await read('verifierStake'), parseEther('0.5'))
    assert.equal(await read('challengeWindow'), 5n)
    assert.equal(await read('taskCount'), 0n)
    assert.equal(await read('totalEscrow'), 0n)
  })

  it('submitTask escrows msg.value, numbers tasks from 1 and opens the claim deadline', async () => {
    const {submitter} = ctx.actors
    const first = await submitTask(ctx)
    const now = await latestTimestamp(ctx)
    assert.equal(first.id, 1n)
    expectEvents(first.result.events, [
      {
        eventName: 'TaskSubmitted',
        args: {
          id: 1n,
          submitter: submitter.address,
          specHash: defaultTask.specHash,
          escrow: defaultTask.escrow,
          solverReward: defaultTask.solverReward,
          verifierReward: defaultTask.verifierReward,
        },
      },
    ])
    assert.equal(flowOf(first.result, submitter.address), -defaultTask.escrow)
    assert.equal(flowOf(first.result, ctx.system.market), defaultTask.escrow)
    const task = await getTask(ctx, 1n)
    assert.deepEqual(task, {
      submitter: submitter.address,
      solver: '0x0000000000000000000000000000000000000000',
      verifier: '0x0000000000000000000000000000000000000000',
      status: Status.Submitted,
      accepted: false,
      attempts: 0,
      specHash: defaultTask.specHash,
      escrow: defaultTask.escrow,
      solverReward: defaultTask.solverReward,
      verifierReward: defaultTask.verifierReward,
      claimTimeout: defaultTask.claimTimeout,
      trainingTimeout: defaultTask.trainingTimeout,
      verificationTimeout: defaultTask.verificationTimeout,
      deadline: now + defaultTask.claimTimeout,
      submittedAt: now,
      commitBlock: 0n,
      checkpointCount: 0,
      proofRoot: zeroHash,
      manifestHash: zeroHash,
      randomness: zeroHash,
      reportHash: zeroHash,
      distance: 0n,
    })
    assert.equal(
      await ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'wasRejected', args: [1n, ctx.actors.solver.address]}),
      false,
    )
    const second = await submitTask(ctx, {escrow: parseEther('2')})
    assert.equal(second.id, 2n)
    assert.equal(await read('taskCount'), 2n)
    assert.equal(await read('totalEscrow'), defaultTask.escrow + parseEther('2'))
  })

  it('submitTask accepts escrow exactly equal to the rewards and a zero-reward task', async () => {
    const exact = await submitTask(ctx, {escrow: defaultTask.solverReward + defaultTask.verifierReward})
    assert.equal((await getTask(ctx, exact.id)).escrow, parseEther('2'))
    const free = await submitTask(ctx, {escrow: 0n, solverReward: 0n, verifierReward: 0n})
    assert.equal((await getTask(ctx, free.id)).status, Status.Submitted)
  })

  it('claimTask: a registered solver claims, locks solverStake and gets trainingTimeout', async () => {
    const {solver} = ctx.actors
    const {id} = await submitTask(ctx)
    const result = await marketWrite(ctx, solver, 'claimTask', [id])
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {eventName: 'TaskClaimed', args: {id, solver: solver.address}},
      {eventName: 'Locked', args: {account: solver.address, amount: parseEther('1')}},
    ])
    const task = await getTask(ctx, id)
    assert.equal(task.status, Status.Claimed)
    assert.equal(task.solver, solver.address)
    assert.equal(task.deadline, now + defaultTask.trainingTimeout)
    assert.deepEqual(await stakeOf(ctx, solver.address), {free: parseEther('4'), locked: parseEther('1'), unbonding: 0n, releaseAt: 0n})
  })

  it('claimTask is allowed at exactly the deadline second and not one second later', async () => {
    const {id} = await submitTask(ctx)
    const {deadline} = await getTask(ctx, id)
    await ctx.test.setNextBlockTimestamp({timestamp: deadline})
    const atDeadline = await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id], {gas: 300_000n})
    assert.equal(atDeadline.receipt.status, 'success')

    const late = await submitTask(ctx)
    const lateDeadline = (await getTask(ctx, late.id)).deadline
    await ctx.test.setNextBlockTimestamp({timestamp: lateDeadline + 1n})
    const afterDeadline = await marketWrite(ctx, ctx.actors.solver, 'claimTask', [late.id], {gas: 300_000n})
    assert.equal(afterDeadline.receipt.status, 'reverted')
  })

  it('commitProof records the proof, the commit block and opens the verification deadline', async () => {
    const id = await taskAt(ctx, 'Claimed')
    const result = await marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, proof.checkpoints])
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {eventName: 'ProofCommitted', args: {id, proofRoot: proof.root, manifestHash: proof.manifest, checkpointCount: proof.checkpoints}},
    ])
    const task = await getTask(ctx, id)
    assert.equal(task.status, Status.Committed)
    assert.equal(task.proofRoot, proof.root)
    assert.equal(task.manifestHash, proof.manifest)
    assert.equal(task.checkpointCount, proof.checkpoints)
    assert.equal(task.commitBlock, result.receipt.blockNumber)
    assert.equal(task.deadline, now + defaultTask.verificationTimeout)
  })

  it('commitProof accepts the minimum of 2 checkpoints', async () => {
    const id = await taskAt(ctx, 'Claimed')
    await marketWrite(ctx, ctx.actors.solver, 'commitProof', [id, proof.root, proof.manifest, 2])
    assert.equal((await getTask(ctx, id)).checkpointCount, 2)
  })

  it('claimVerification takes randomness from the block after the commit, locks verifierStake and restarts the deadline', async () => {
    const {verifier} = ctx.actors
    const id = await taskAt(ctx, 'Committed')
    const {commitBlock} = await getTask(ctx, id)
    await ctx.test.mine({blocks: 1})
    const randomBlock = await ctx.publicClient.getBlock({blockNumber: commitBlock + 1n})
    await advanceTime(ctx, 100)
    const result = await marketWrite(ctx, verifier, 'claimVerification', [id])
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {eventName: 'VerificationClaimed', args: {id, verifier: verifier.address, randomness: randomBlock.hash}},
      {eventName: 'Locked', args: {account: verifier.address, amount: parseEther('0.5')}},
    ])
    const task = await getTask(ctx, id)
    assert.equal(task.status, Status.Verifying)
    assert.equal(task.verifier, verifier.address)
    assert.equal(task.randomness, randomBlock.hash)
    assert.equal(task.deadline, now + defaultTask.verificationTimeout, 'the verifier gets a full verificationTimeout')
    assert.equal((await stakeOf(ctx, verifier.address)).locked, parseEther('0.5'))
  })

  it('claimVerification falls back to keccak(id, previous blockhash) once the random block is older than 256 blocks', async () => {
    const id = await taskAt(ctx, 'Committed', {verificationTimeout: 86_400n})
    await ctx.test.mine({blocks: 300})
    const result = await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
    const previous = await ctx.publicClient.getBlock({blockNumber: result.receipt.blockNumber - 1n})
    const expected = keccak256(encodeAbiParameters([{type: 'uint256'}, {type: 'bytes32'}], [id, previous.hash]))
    assert.equal((await getTask(ctx, id)).randomness, expected)
    assert.notEqual(expected, zeroHash)
  })

  it('postVerdict records the verdict and its measured distance (1e18-scaled, any uint256) and opens the challenge window', async () => {
    const {verifier} = ctx.actors
    for (const [accepted, distance] of [
      [true, 0n],
      [true, proof.distance],
      [false, 3n * 10n ** 18n],
      [false, maxUint256],
    ] as const) {
      const id = await taskAt(ctx, 'Verifying')
      const result = await marketWrite(ctx, verifier, 'postVerdict', [id, accepted, proof.report, distance])
      const now = await latestTimestamp(ctx)
      expectEvents(result.events, [{eventName: 'VerdictPosted', args: {id, verifier: verifier.address, accepted, reportHash: proof.report, distance}}])
      const task = await getTask(ctx, id)
      assert.equal(task.status, Status.Verified)
      assert.equal(task.accepted, accepted)
      assert.equal(task.reportHash, proof.report)
      assert.equal(task.distance, distance)
      assert.equal(task.deadline, now + 5n)
    }
  })

  it('settle is refused at the last second of the challenge window and allowed one second after', async () => {
    const id = await taskAt(ctx, 'Verified')
    const {deadline} = await getTask(ctx, id)
    await ctx.test.setNextBlockTimestamp({timestamp: deadline})
    const early = await marketWrite(ctx, ctx.actors.other, 'settle', [id], {gas: 300_000n})
    assert.equal(early.receipt.status, 'reverted')
    await ctx.test.setNextBlockTimestamp({timestamp: deadline + 1n})
    const onTime = await marketWrite(ctx, ctx.actors.other, 'settle', [id], {gas: 300_000n})
    assert.equal(onTime.receipt.status, 'success')
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
  })

  it('each stage has its own deadline: a late actor is refused and the task becomes expirable', async () => {
    // Submitted -> claim too late
    const submitted = await taskAt(ctx, 'Submitted')
    await advanceTime(ctx, defaultTask.claimTimeout + 1n)
    const {deadline: claimDeadline} = await getTask(ctx, submitted)
    await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [submitted]), 'DeadlinePassed', [
      submitted,
      claimDeadline,
    ])
    // Claimed -> commit too late
    const claimed = await taskAt(ctx, 'Claimed')
    await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
    const {deadline: commitDeadline} = await getTask(ctx, claimed)
    await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', [claimed, proof.root, proof.manifest, 3]), 'DeadlinePassed', [
      claimed,
      commitDeadline,
    ])
    for (const id of [submitted, claimed]) {
      await marketWrite(ctx, ctx.actors.other, 'expire', [id])
      assert.equal((await getTask(ctx, id)).status, Status.Expired)
    }
  })

  it('the whole happy path, gas per call', async () => {
    const {submitter, solver, verifier, other} = ctx.actors
    const {id, result: submitted} = await submitTask(ctx)
    const claimed = await marketWrite(ctx, solver, 'claimTask', [id])
    const committed = await marketWrite(ctx, solver, 'commitProof', [id, proof.root, proof.manifest, proof.checkpoints])
    await ctx.test.mine({blocks: 1})
    const verifying = await marketWrite(ctx, verifier, 'claimVerification', [id])
    const verdict = await marketWrite(ctx, verifier, 'postVerdict', [id, true, proof.report, proof.distance])
    await advanceTime(ctx, 6)
    const settled = await marketWrite(ctx, other, 'settle', [id])
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
    for (const [name, r] of Object.entries({submitted, claimed, committed, verifying, verdict, settled})) {
      assert.ok(r.receipt.gasUsed < 300_000n, `${name} used ${r.receipt.gasUsed} gas`)
    }
    assert.equal(flowOf(settled, submitter.address), defaultTask.escrow - defaultTask.solverReward - defaultTask.verifierReward)
  })

  it('the rejection path, gas per call: the rejecting settle and a second attempt stay cheap', async () => {
    const {solver, verifier, verifier2, other} = ctx.actors
    await registryWrite(ctx, other, 'register', [1], {value: parseEther('2')})
    const id = await taskAt(ctx, 'Verified', {accepted: false})
    await advanceTime(ctx, 6)
    const rejected = await marketWrite(ctx, verifier2, 'settle', [id])
    const reclaimed = await marketWrite(ctx, other, 'claimTask', [id])
    await marketWrite(ctx, other, 'commitProof', [id, proof.root, proof.manifest, proof.checkpoints])
    await ctx.test.mine({blocks: 1})
    await marketWrite(ctx, verifier, 'claimVerification', [id])
    await marketWrite(ctx, verifier, 'postVerdict', [id, true, proof.report, 0n])
    await advanceTime(ctx, 6)
    const settled = await marketWrite(ctx, solver, 'settle', [id])
    for (const [name, r] of Object.entries({rejected, reclaimed, settled})) {
      assert.ok(r.receipt.gasUsed < 300_000n, `${name} used ${r.receipt.gasUsed} gas`)
    }
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
  })
})
