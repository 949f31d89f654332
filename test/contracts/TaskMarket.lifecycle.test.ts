import assert from 'node:assert/strict'

import {encodeAbiParameters, getAddress, keccak256, maxUint256, parseEther, zeroAddress, zeroHash} from 'viem'

import {defaultProtocolParams} from '../../src/chain/deployContracts.js'
import {taskMarketAbi} from '../../src/chain/generated/index.js'
import {
  advanceTime,
  configWrite,
  expectEvents,
  expectRevert,
  flowOf,
  getTask,
  latestTimestamp,
  marketWrite,
  mineAt,
  readTask,
  registryWrite,
  stakeOf,
  useChain,
  readMarket,
  type TxResult,
} from './helpers/chain.js'
import {
  clearedAttempt,
  commitArgs,
  defaultSecret,
  defaultTask,
  escrowOf,
  isForced,
  label,
  makeProof,
  mineTo,
  passWindows,
  proof,
  registerSolver,
  rejection,
  commitmentOf,
  sealOf,
  secretHashOf,
  setMarket,
  setWorkTable,
  Status,
  submitTask,
  taskAt,
  verdictArgs,
  driveTask,
} from './helpers/tasks.js'

describe('TaskMarket lifecycle (on anvil)', () => {
  const ctx = useChain({stake: parseEther('20')})
  const read = <const fn extends 'registry' | 'treasury' | 'config' | 'game' | 'owner' | 'taskCount' | 'totalEscrow' | 'jackpot'>(functionName: fn) =>
    ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName})
  const forcedErrorOf = (id: bigint, secret = defaultSecret) => readMarket(ctx, 'forcedErrorOf', [id, secret])

  it('exposes its wiring', async () => {
    assert.equal(getAddress(await read('registry')), getAddress(ctx.system.registry))
    assert.equal(getAddress(await read('config')), getAddress(ctx.system.config))
    assert.equal(getAddress(await read('game')), getAddress(ctx.system.game))
    assert.equal(await read('treasury'), ctx.actors.treasury.address)
    assert.equal(await read('owner'), ctx.actors.deployer.address)
    assert.equal(await read('taskCount'), 0n)
    assert.equal(await read('totalEscrow'), 0n)
    assert.equal(await read('jackpot'), 0n)
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
          workUnits: defaultTask.workUnits,
          maxSteps: defaultTask.maxSteps,
          maxPrice: defaultTask.maxPrice,
          parentId: 0n,
        },
      },
    ])
    assert.equal(flowOf(first.result, submitter.address), -defaultTask.escrow)
    assert.equal(flowOf(first.result, ctx.system.market), defaultTask.escrow)
    const task = await getTask(ctx, 1n)
    assert.deepEqual(task, {
      submitter: submitter.address,
      status: Status.Submitted,
      attempts: 0,
      escrow: defaultTask.escrow,
      workUnits: defaultTask.workUnits,
      maxSteps: defaultTask.maxSteps,
      verifierFeeBps: 2000,
      // 250,000 work units at 1e13 pay 2.5 solverStakes: a whole slot of the book's demand.
      demandWeight: 10000,
      maxPrice: defaultTask.maxPrice,
      parentId: 0n,
      claimTimeout: defaultTask.claimTimeout,
      trainingTimeout: defaultTask.trainingTimeout,
      verificationTimeout: defaultTask.verificationTimeout,
      deadline: now + defaultTask.claimTimeout,
      submittedAt: now,
      ...clearedAttempt,
    })
    // Not stored: readers take it from the TaskSubmitted event (docs/market.md, "What a task stores").
    const read1 = await readTask(ctx, 1n)
    assert.deepEqual([read1.specHash, read1.randomness, read1.reportHash], [defaultTask.specHash, zeroHash, zeroHash])
    assert.equal(
      await ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'wasRejected', args: [1n, ctx.actors.solver.address]}),
      false,
    )
    assert.deepEqual(await ctx.publicClient.readContract({address: ctx.system.market, abi: taskMarketAbi, functionName: 'challengesOf', args: [1n]}), [])
    const second = await submitTask(ctx, {escrow: parseEther('5')})
    assert.equal(second.id, 2n)
    assert.equal(await read('taskCount'), 2n)
    assert.equal(await read('totalEscrow'), defaultTask.escrow + parseEther('5'))
  })

  it('submitTask takes exactly the escrow ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000), rounded up to the wei', async () => {
    // 3 work units at 7 wei with a 20 % fee: 25.2 wei -> 26.
    await setMarket(ctx, {priceFloor: 1n, initialPrice: 1n})
    assert.equal(escrowOf(3n, 7n), 26n)
    const exact = await submitTask(ctx, {workUnits: 3n, maxPrice: 7n})
    assert.equal((await getTask(ctx, exact.id)).escrow, 26n)
    await expectRevert(submitTask(ctx, {workUnits: 3n, maxPrice: 7n, escrow: 25n}), 'InsufficientEscrow', [25n, 26n])
    // A fee of 0 and the largest fee.
    await setMarket(ctx, {priceFloor: 1n, initialPrice: 1n, verifierFeeBps: 0})
    await expectRevert(submitTask(ctx, {workUnits: 3n, maxPrice: 7n, escrow: 20n}), 'InsufficientEscrow', [20n, 21n])
    await setMarket(ctx, {priceFloor: 1n, initialPrice: 1n, verifierFeeBps: 10000})
    await expectRevert(submitTask(ctx, {workUnits: 3n, maxPrice: 7n, escrow: 41n}), 'InsufficientEscrow', [41n, 42n])
    const double = await submitTask(ctx, {workUnits: 3n, maxPrice: 7n, escrow: 42n})
    assert.equal((await getTask(ctx, double.id)).verifierFeeBps, 10000)
    // The escrow for the largest task at the largest price a config allows (far from overflow).
    await setWorkTable(ctx, {maxWorkUnits: 2n ** 64n - 1n})
    await setMarket(ctx, {priceFloor: 10n ** 30n, initialPrice: 10n ** 30n, priceCeiling: 10n ** 30n, minWorkUnitsPerSecond: 2n ** 64n - 1n})
    const huge = escrowOf(2n ** 64n - 1n, 10n ** 30n, 2000n)
    await expectRevert(submitTask(ctx, {workUnits: 2n ** 64n - 1n, maxPrice: 10n ** 30n, escrow: 1n}), 'InsufficientEscrow', [1n, huge])
    // A maxPrice so large that the escrow overflows needs more than any balance: the requirement saturates.
    await expectRevert(submitTask(ctx, {maxPrice: maxUint256, escrow: 1n}), 'InsufficientEscrow', [1n, maxUint256])
  })

  it('claimTask: commits to the secret, records the claim block, snapshots solverStake and forcedErrorBps, locks the stake', async () => {
    const {solver} = ctx.actors
    const {id} = await submitTask(ctx)
    const secretHash = secretHashOf(defaultSecret)
    const result = await marketWrite(ctx, solver, 'claimTask', [id, secretHash])
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {eventName: 'TaskClaimed', args: {id, solver: solver.address, secretHash, stake: parseEther('1'), price: defaultTask.price}},
      {eventName: 'Locked', args: {account: solver.address, amount: parseEther('1')}},
    ])
    const task = await getTask(ctx, id)
    assert.equal(task.status, Status.Claimed)
    assert.deepEqual([task.price, task.solverReward, task.verifierReward], [defaultTask.price, defaultTask.solverReward, defaultTask.verifierReward])
    assert.equal(task.solver, solver.address)
    assert.equal(task.deadline, now + defaultTask.trainingTimeout)
    assert.equal(task.secretHash, secretHash)
    assert.equal(task.claimBlock, result.receipt.blockNumber)
    assert.equal(task.solverLocked, parseEther('1'))
    assert.equal(task.forcedErrorBps, defaultProtocolParams.forcedErrorBps)
    assert.deepEqual(await stakeOf(ctx, solver.address), {free: parseEther('19'), locked: parseEther('1'), unbonding: 0n, releaseAt: 0n})
  })

  it('claimTask is allowed at exactly the deadline second and not one second later', async () => {
    const {id} = await submitTask(ctx)
    const {deadline} = await getTask(ctx, id)
    await ctx.test.setNextBlockTimestamp({timestamp: deadline})
    const atDeadline = await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, zeroHash], {gas: 400_000n})
    assert.equal(atDeadline.receipt.status, 'success')

    const late = await submitTask(ctx)
    const lateDeadline = (await getTask(ctx, late.id)).deadline
    await ctx.test.setNextBlockTimestamp({timestamp: lateDeadline + 1n})
    const afterDeadline = await marketWrite(ctx, ctx.actors.solver, 'claimTask', [late.id, zeroHash], {gas: 400_000n})
    assert.equal(afterDeadline.receipt.status, 'reverted')
  })

  it('commitProof records the proof, the schedule, the seal and the seed blockhash(claimBlock + 1), and opens the verification deadline', async () => {
    const id = await taskAt(ctx, 'Claimed')
    const {claimBlock} = await getTask(ctx, id)
    await ctx.test.mine({blocks: 1})
    const seed = (await ctx.publicClient.getBlock({blockNumber: claimBlock + 1n})).hash
    const result = await marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id))
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {
        eventName: 'ProofCommitted',
        args: {id, proofRoot: proof.root, manifestHash: proof.manifest, checkpointCount: 5, checkpointInterval: 10n, totalSteps: 40n, seed, sealedHonest: sealOf(proof, defaultSecret)},
      },
    ])
    const task = await getTask(ctx, id)
    assert.equal(task.status, Status.Committed)
    assert.equal(task.proofRoot, proof.root)
    // Not stored: readers take it from the ProofCommitted event.
    assert.equal((await readTask(ctx, id)).manifestHash, proof.manifest)
    assert.equal(task.checkpointCount, 5)
    assert.equal(task.checkpointInterval, 10n)
    assert.equal(task.totalSteps, 40n)
    // The secret's hash, the seed and the seal share one slot from here: the commitment a reveal opens. Readers
    // take the three from TaskClaimed and ProofCommitted.
    assert.equal(task.secretHash, commitmentOf(secretHashOf(defaultSecret), seed, sealOf(proof, defaultSecret)))
    assert.equal(task.seed, zeroHash)
    const read = await readTask(ctx, id)
    assert.deepEqual([read.secretHash, read.seed, read.sealedHonest], [secretHashOf(defaultSecret), seed, sealOf(proof, defaultSecret)])
    assert.equal(task.commitBlock, result.receipt.blockNumber)
    assert.equal(task.deadline, now + defaultTask.verificationTimeout)
  })

  it('commitProof accepts every schedule where checkpointCount == ceil(totalSteps / interval) + 1 (a short last segment included)', async () => {
    // Tasks of the largest range a work table allows (MAX_STEPS, 2^40 - 1: a task packs its steps and interval in
    // 40 bits), so that every schedule is at most maxSteps.
    const range = 2n ** 40n - 1n
    await setWorkTable(ctx, {maxSteps: range})
    for (const [count, interval, totalSteps] of [
      [2, 1n, 1n],
      [2, 100n, 1n],
      [2, 7n, 7n],
      [3, 7n, 8n],
      [5, 10n, 31n],
      [4, 2n ** 38n, 3n * 2n ** 38n],
      [2, range, range],
      [3, 2n ** 39n, range],
    ] as const) {
      const id = await taskAt(ctx, 'Claimed', {maxSteps: range})
      await ctx.test.mine({blocks: 1})
      const p = makeProof('schedule', {count, interval, totalSteps})
      await marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id, p))
      const task = await getTask(ctx, id)
      assert.deepEqual([task.checkpointCount, task.checkpointInterval, task.totalSteps], [count, interval, totalSteps])
      // Paid for the steps trained: price * workUnits * totalSteps / maxSteps.
      assert.equal(task.solverReward, (defaultTask.solverReward * totalSteps) / range)
    }
  })

  it('forcedErrorOf tosses keccak256(abi.encode(secret, seed)) % 10000 < forcedErrorBps while Claimed; after the commit ProofCommitted\'s seed tosses the same coin', async () => {
    await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, forcedErrorBps: 5000}])
    // The seeds are block hashes, so which coins come up varies from run to run; what must hold is that the
    // view agrees with the formula for every one of them.
    for (let k = 0; k < 12; k++) {
      const secret = label(`coin ${k}`)
      const id = await taskAt(ctx, 'Claimed', {secret})
      const {claimBlock} = await getTask(ctx, id)
      await ctx.test.mine({blocks: 1})
      // A call runs in the head block, whose own hash the EVM does not serve: the view needs one more block.
      await expectRevert(forcedErrorOf(id, secret), 'RandomnessNotReady', [id, claimBlock + 2n])
      await ctx.test.mine({blocks: 1})
      const seed = (await ctx.publicClient.getBlock({blockNumber: claimBlock + 1n})).hash
      const expected = isForced(secret, seed, 5000)
      assert.equal(await forcedErrorOf(id, secret), expected, 'before the commit')
      await marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id, proof, proof, secret))
      await expectRevert(forcedErrorOf(id, secret), 'InvalidStatus', [id, Status.Committed])
      assert.equal(isForced(secret, (await readTask(ctx, id)).seed, 5000), expected, 'after the commit')
    }
    // 0 bps never forces; 10000 always does.
    for (const bps of [0, 10000]) {
      await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, forcedErrorBps: bps}])
      const id = await taskAt(ctx, 'Claimed')
      await ctx.test.mine({blocks: 2})
      assert.equal(await forcedErrorOf(id), bps === 10000)
    }
  })

  it('the coin keeps the forcedErrorBps snapshotted at the claim when the config changes later', async () => {
    await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, forcedErrorBps: 10000}])
    const id = await taskAt(ctx, 'Claimed')
    await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, forcedErrorBps: 0}])
    await ctx.test.mine({blocks: 1})
    assert.equal(await forcedErrorOf(id), true)
    await marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id))
    assert.equal((await getTask(ctx, id)).forcedErrorBps, 10000)
  })

  it('fixSeed records blockhash(claimBlock + 1) from claimBlock + 2 to claimBlock + 257, once, only while Claimed', async () => {
    await setMarket(ctx, {trainingBaseSeconds: 86_400n})
    const id = await submitTask(ctx).then(({id}) => id)
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'fixSeed', [id]), 'InvalidStatus', [id, Status.Submitted])
    await marketWrite(ctx, ctx.actors.solver, 'claimTask', [id, secretHashOf(defaultSecret)])
    const {claimBlock} = await getTask(ctx, id)
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'fixSeed', [id]), 'RandomnessNotReady', [id, claimBlock + 2n])
    await mineTo(ctx, claimBlock + 256n)
    const result = await marketWrite(ctx, ctx.actors.other, 'fixSeed', [id])
    assert.equal(result.receipt.blockNumber, claimBlock + 257n, 'the last block that still reads blockhash(claimBlock + 1)')
    const seedBlock = await ctx.publicClient.getBlock({blockNumber: claimBlock + 1n})
    expectEvents(result.events, [{eventName: 'SeedFixed', args: {id, seed: seedBlock.hash}}])
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'fixSeed', [id]), 'SeedAlreadyFixed', [id])
    await ctx.test.mine({blocks: 300})
    await marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id))
    assert.equal((await getTask(ctx, id)).seed, seedBlock.hash, 'the recorded seed outlives the EVM window')
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'fixSeed', [id]), 'InvalidStatus', [id, Status.Committed])
  })

  it('fixSeed and commitProof revert RandomnessExpired once blockhash(claimBlock + 1) is forgotten', async () => {
    await setMarket(ctx, {trainingBaseSeconds: 86_400n})
    const id = await taskAt(ctx, 'Claimed')
    const {claimBlock} = await getTask(ctx, id)
    await mineTo(ctx, claimBlock + 257n)
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'fixSeed', [id]), 'RandomnessExpired', [id, claimBlock + 257n])
    await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(id)), 'RandomnessExpired', [id, claimBlock + 257n])
  })

  it('claimVerification takes randomness from the block after the commit, snapshots and locks verifierStake and restarts the deadline', async () => {
    const {verifier} = ctx.actors
    const id = await taskAt(ctx, 'Committed')
    const {commitBlock} = await getTask(ctx, id)
    await ctx.test.mine({blocks: 1})
    const randomBlock = await ctx.publicClient.getBlock({blockNumber: commitBlock + 1n})
    await advanceTime(ctx, 100)
    const result = await marketWrite(ctx, verifier, 'claimVerification', [id])
    const now = await latestTimestamp(ctx)
    expectEvents(result.events, [
      {eventName: 'VerificationClaimed', args: {id, verifier: verifier.address, randomness: randomBlock.hash, stake: parseEther('0.5')}},
      {eventName: 'Locked', args: {account: verifier.address, amount: parseEther('0.5')}},
    ])
    const task = await getTask(ctx, id)
    assert.equal(task.status, Status.Verifying)
    assert.equal(task.verifier, verifier.address)
    // Not stored: readers take the hash of block commitBlock + 1, as the claim did.
    assert.equal((await readTask(ctx, id)).randomness, randomBlock.hash)
    assert.equal(task.verifierLocked, parseEther('0.5'))
    assert.equal(task.deadline, now + defaultTask.verificationTimeout, 'the verifier gets a full verificationTimeout')
    assert.equal((await stakeOf(ctx, verifier.address)).locked, parseEther('0.5'))
  })

  it('claimVerification reverts RandomnessExpired past the window; renewRandomness moves the anchor to its own block, once expired', async () => {
    await setMarket(ctx, {verificationTimeoutSeconds: 86_400n})
    const id = await taskAt(ctx, 'Committed')
    const {commitBlock} = await getTask(ctx, id)
    await mineTo(ctx, commitBlock + 256n)
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'renewRandomness', [id]), 'RandomnessNotExpired', [id, commitBlock + 257n])
    await ctx.test.mine({blocks: 1})
    await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'RandomnessExpired', [id, commitBlock + 257n])
    const renewed = await marketWrite(ctx, ctx.actors.other, 'renewRandomness', [id])
    const anchor = renewed.receipt.blockNumber
    expectEvents(renewed.events, [{eventName: 'RandomnessRenewed', args: {id, commitBlock: anchor}}])
    await expectRevert(marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id]), 'RandomnessNotReady', [id, anchor + 2n])
    await ctx.test.mine({blocks: 1})
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'renewRandomness', [id]), 'RandomnessNotExpired', [id, anchor + 257n])
    await marketWrite(ctx, ctx.actors.verifier, 'claimVerification', [id])
    const drawn = await ctx.publicClient.getBlock({blockNumber: anchor + 1n})
    assert.equal((await readTask(ctx, id)).randomness, drawn.hash)
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'renewRandomness', [id]), 'InvalidStatus', [id, Status.Verifying])
  })

  it('renewRandomness is refused after the verification deadline (the task expires instead)', async () => {
    const id = await taskAt(ctx, 'Committed')
    const {deadline} = await getTask(ctx, id)
    await mineAt(ctx, deadline + 1n)
    await expectRevert(marketWrite(ctx, ctx.actors.other, 'renewRandomness', [id]), 'DeadlinePassed', [id, deadline])
  })

  it('postVerdict records the verdict, its distance (any uint256), a rejection claim, and opens the three windows in blocks', async () => {
    const {verifier} = ctx.actors
    for (const [accepted, distance, segment] of [
      [true, 0n, 0],
      [true, proof.distance, 0],
      [false, 3n * 10n ** 18n, 0],
      [false, maxUint256, 3],
    ] as const) {
      const id = await taskAt(ctx, 'Verifying')
      const result = await marketWrite(ctx, verifier, 'postVerdict', verdictArgs(id, accepted, {distance, segment}))
      const block = result.receipt.blockNumber
      const replayHash = accepted ? zeroHash : rejection.replayHash
      expectEvents(result.events, [
        {
          eventName: 'VerdictPosted',
          args: {id, verifier: verifier.address, accepted, reportHash: proof.report, distance, segment, replayHash, challengeEndBlock: block + 5n, openEndBlock: block + 8n, revealEndBlock: block + 11n},
        },
      ])
      const task = await getTask(ctx, id)
      assert.equal(task.status, Status.Verified)
      assert.equal(task.accepted, accepted)
      // Not stored: readers take both from the VerdictPosted event of block verdictBlock.
      const read = await readTask(ctx, id)
      assert.deepEqual([read.reportHash, read.distance], [proof.report, distance])
      assert.equal(task.rejectSegment, segment)
      assert.equal(task.rejectReplayHash, replayHash)
      assert.deepEqual([task.verdictBlock, task.challengeEndBlock, task.openEndBlock, task.revealEndBlock], [block, block + 5n, block + 8n, block + 11n])
    }
  })

  it('the windows are snapshotted at the verdict: a config change afterwards does not move them', async () => {
    const id = await taskAt(ctx, 'Verified')
    const before = await getTask(ctx, id)
    await configWrite(ctx, ctx.actors.deployer, 'setParams', [{...defaultProtocolParams, challengeWindowBlocks: 50n, openWindowBlocks: 50n, revealWindowBlocks: 50n}])
    await passWindows(ctx, id)
    const after = await getTask(ctx, id)
    assert.deepEqual([after.challengeEndBlock, after.openEndBlock, after.revealEndBlock], [before.challengeEndBlock, before.openEndBlock, before.revealEndBlock])
    await marketWrite(ctx, ctx.actors.other, 'settle', [id])
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
  })

  it('settle is refused in the last block of the reveal window and allowed in the block after', async () => {
    const id = await taskAt(ctx, 'Verified')
    const {revealEndBlock} = await getTask(ctx, id)
    await ctx.test.mine({blocks: Number(revealEndBlock - (await ctx.publicClient.getBlockNumber({cacheTime: 0})) - 1n)})
    const early = await marketWrite(ctx, ctx.actors.other, 'settle', [id], {gas: 400_000n})
    assert.equal(early.receipt.blockNumber, revealEndBlock)
    assert.equal(early.receipt.status, 'reverted')
    const onTime = await marketWrite(ctx, ctx.actors.other, 'settle', [id], {gas: 400_000n})
    assert.equal(onTime.receipt.blockNumber, revealEndBlock + 1n)
    assert.equal(onTime.receipt.status, 'success')
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
  })

  it('each stage has its own deadline: a late actor is refused and the task becomes expirable (a claim times out and reopens)', async () => {
    // Submitted -> claim too late
    const submitted = await taskAt(ctx, 'Submitted')
    await advanceTime(ctx, defaultTask.claimTimeout + 1n)
    const {deadline: claimDeadline} = await getTask(ctx, submitted)
    await expectRevert(marketWrite(ctx, ctx.actors.solver, 'claimTask', [submitted, zeroHash]), 'DeadlinePassed', [submitted, claimDeadline])
    // Claimed -> commit too late
    const claimed = await taskAt(ctx, 'Claimed')
    await advanceTime(ctx, defaultTask.trainingTimeout + 1n)
    const {deadline: commitDeadline} = await getTask(ctx, claimed)
    await expectRevert(marketWrite(ctx, ctx.actors.solver, 'commitProof', commitArgs(claimed)), 'DeadlinePassed', [claimed, commitDeadline])
    await marketWrite(ctx, ctx.actors.other, 'expire', [submitted])
    assert.equal((await getTask(ctx, submitted)).status, Status.Expired)
    await marketWrite(ctx, ctx.actors.other, 'expire', [claimed])
    assert.equal((await getTask(ctx, claimed)).status, Status.Submitted)
  })

  it('the whole happy path, gas per call', async () => {
    const {submitter, solver, verifier, other} = ctx.actors
    const {id, result: submitted} = await submitTask(ctx)
    const claimed = await marketWrite(ctx, solver, 'claimTask', [id, secretHashOf(defaultSecret)])
    await ctx.test.mine({blocks: 1})
    const committed = await marketWrite(ctx, solver, 'commitProof', commitArgs(id))
    await ctx.test.mine({blocks: 1})
    const verifying = await marketWrite(ctx, verifier, 'claimVerification', [id])
    const verdict = await marketWrite(ctx, verifier, 'postVerdict', verdictArgs(id, true))
    await passWindows(ctx, id)
    const settled = await marketWrite(ctx, other, 'settle', [id])
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
    // A submission writes the task's estimate, price bound and snapshotted terms and counts it in the book.
    for (const [name, r] of Object.entries({submitted, claimed, committed, verifying, verdict, settled})) {
      assert.ok(r.receipt.gasUsed < 350_000n, `${name} used ${r.receipt.gasUsed} gas`)
    }
    assert.equal(flowOf(settled, submitter.address), defaultTask.escrow - defaultTask.solverReward - defaultTask.verifierReward)
  })

  it('the whole happy path twice on the same accounts, gas per call: the second settles without opening the recipients\' credit slots', async () => {
    const lifecycle = async () => {
      const {id, result: submitted} = await submitTask(ctx)
      const driven: TxResult[] = []
      await driveTask(ctx, id, 'Verified', {collect: driven})
      await passWindows(ctx, id)
      const settled = await marketWrite(ctx, ctx.actors.other, 'settle', [id])
      return [submitted, ...driven, settled].map((result) => result.receipt.gasUsed)
    }
    const first = await lifecycle()
    const second = await lifecycle()
    if (process.env.GAS_REPORT) console.log(`    first ${first.join(' · ')}\n    second ${second.join(' · ')}`)
    // Three credits updated (5k each) where the first settlement opened them (22.1k each).
    assert.ok(first.at(-1)! - second.at(-1)! >= 3n * 17_000n, `settle: ${first.at(-1)} then ${second.at(-1)}`)
  })

  it('the rejection path, gas per call: the rejecting settle and a second attempt stay cheap', async () => {
    const {solver, verifier, verifier2, other} = ctx.actors
    await registerSolver(ctx, other, parseEther('2'))
    const id = await taskAt(ctx, 'Verified', {accepted: false})
    await passWindows(ctx, id)
    const rejected = await marketWrite(ctx, verifier2, 'settle', [id])
    const reclaimed = await marketWrite(ctx, other, 'claimTask', [id, zeroHash])
    await ctx.test.mine({blocks: 1})
    await marketWrite(ctx, other, 'commitProof', commitArgs(id))
    await ctx.test.mine({blocks: 1})
    await marketWrite(ctx, verifier, 'claimVerification', [id])
    await marketWrite(ctx, verifier, 'postVerdict', verdictArgs(id, true, {distance: 0n}))
    await passWindows(ctx, id)
    const settled = await marketWrite(ctx, solver, 'settle', [id])
    for (const [name, r] of Object.entries({rejected, reclaimed, settled})) {
      assert.ok(r.receipt.gasUsed < 350_000n, `${name} used ${r.receipt.gasUsed} gas`)
    }
    assert.equal((await getTask(ctx, id)).status, Status.Settled)
  })
})
