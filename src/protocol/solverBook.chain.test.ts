import assert from 'node:assert/strict'
import path from 'node:path'

import {parseEther, zeroHash} from 'viem'

import {roleRegistryAbi} from '../chain/generated/index.js'

import {protocolConfigAbi} from '../chain/generated/index.js'
import {InvalidInputError} from '../errors/base.js'
import {escrowFor} from '../ml/estimate/escrowFor.js'
import {estimateWork} from '../ml/estimate/estimateWork.js'
import {defaultWorkTable} from '../ml/estimate/workTable.js'
import {loadJobSpec, maxPriceWei} from '../ml/spec/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {connect, requireSigner, type SignedConnection} from './connect.js'
import {ensureRegistered} from './ensureRegistered.js'
import {isRevert} from './errors.js'
import {expireTask} from './expireTask.js'
import {getMarketParams} from './getMarketParams.js'
import {defaultMarketParams} from './getProtocolParams.js'
import {getTask} from './getTask.js'
import {getWorkTable} from './getWorkTable.js'
import {claimTask, commitProof} from './marketActions.js'
import {getMarketState, getOffer, pruneOffer, setOffer, withdrawOffer} from './solverBook.js'
import {sendContractTransaction} from './sendContractTransaction.js'
import {submitTask} from './submitTask.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')

/** The market actions of src/protocol against a real anvil with the deployed contracts (no training). */
describe('protocol: the market (SolverBook, estimates, escrow, timeouts) on anvil', function () {
  this.timeout(60_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let solver: SignedConnection

  before(async () => {
    // A 1 s training base and a fast minimum throughput make the training deadline 2 s; epochs longer than the test
    // keep the price at initialPrice (the controller's moves are the contract tests' business).
    const market = {trainingBaseSeconds: 1n, minWorkUnitsPerSecond: 10n ** 12n, priceEpochBlocks: 100_000}
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0}, 0, {market})
    submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    solver = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
  })
  after(() => devnet?.stop())

  it('reads the market parameters and the work table the contract holds; the TypeScript defaults mirror the contract\'s', async () => {
    const params = await getMarketParams(submitter)
    assert.deepEqual(params, {...defaultMarketParams, trainingBaseSeconds: 1n, minWorkUnitsPerSecond: 10n ** 12n, priceEpochBlocks: 100_000})
    assert.deepEqual(await getWorkTable(submitter), defaultWorkTable)
    const onChain = await submitter.publicClient.readContract({
      address: submitter.contracts.config!,
      abi: protocolConfigAbi,
      functionName: 'defaultMarketParams',
    })
    assert.deepEqual(onChain, defaultMarketParams)
  })

  it('submitTask escrows the estimate at the spec\'s maxPrice plus the verifier fee, and records the task\'s work, steps and parent', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const estimate = estimateWork(spec, defaultWorkTable)
    const first = await submitTask(submitter, {spec})
    const escrow = escrowFor(estimate.workUnits, maxPriceWei(spec), 2000)
    assert.deepEqual(
      [first.workUnits, first.maxSteps, first.maxPrice, first.escrow, first.parentId],
      [estimate.workUnits, BigInt(spec.training.steps), maxPriceWei(spec), escrow, 0n],
    )
    const task = await getTask(submitter, {taskId: first.taskId})
    assert.deepEqual(
      [task.status, task.escrow, task.workUnits, task.maxSteps, task.maxPrice, task.parentId, task.verifierFeeBps, task.price],
      ['Submitted', escrow, estimate.workUnits, BigInt(spec.training.steps), maxPriceWei(spec), 0n, 2000, 0n],
    )
    const second = await submitTask(submitter, {spec, parentId: first.taskId})
    assert.equal((await getTask(submitter, {taskId: second.taskId})).parentId, first.taskId)
  })

  it('submitTask refuses a spec beyond a limit of the chain\'s work table before sending anything', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const tooLong = {...spec, training: {...spec.training, steps: 200_000}}
    await assert.rejects(submitTask(submitter, {spec: tooLong}), (error: unknown) => error instanceof InvalidInputError)
  })

  it('offers: setOffer lists what the stake backs, getOffer reads, getMarketState sees the capacity and demand, withdrawOffer unlists; a claim needs a listed offer', async () => {
    await ensureRegistered(solver, {role: 'solver', tasks: 2})
    const state = await getMarketState(solver)
    assert.equal(state.capacity, 0n)
    assert.ok(state.demand >= 1n, 'the tasks submitted so far weigh in the demand')
    assert.equal(state.price, defaultMarketParams.initialPrice)
    assert.equal(state.utilizationBps, defaultMarketParams.targetUtilizationBps, 'no epoch has ended: the window is at the target')
    await assert.rejects(setOffer(solver, {ask: 0n, capacity: 1}), InvalidInputError)
    await assert.rejects(setOffer(solver, {ask: 1n, capacity: 0}), InvalidInputError)
    // Two solverStakes back two tasks, not three.
    await assert.rejects(setOffer(solver, {ask: 1n, capacity: 3}), (error: unknown) => isRevert(error, 'OfferNotBacked'))
    await setOffer(solver, {ask: 1n, capacity: 2})
    assert.deepEqual(await getOffer(solver, {solver: solver.account.address}), {ask: 1n, capacity: 2, active: 0, listed: true})
    assert.equal((await getMarketState(solver)).capacity, 2n)

    const spec = await loadJobSpec(smokeMlp)
    const {taskId} = await submitTask(submitter, {spec})
    const claimed = await claimTask(solver, {taskId, secretHash: zeroHash})
    const price = (await getTask(solver, {taskId})).price
    assert.deepEqual([claimed.price, price], [defaultMarketParams.initialPrice, defaultMarketParams.initialPrice])
    assert.ok(price <= maxPriceWei(spec))
    assert.equal((await getOffer(solver, {solver: solver.account.address})).active, 1)

    await withdrawOffer(solver)
    assert.deepEqual(await getOffer(solver, {solver: solver.account.address}), {ask: 1n, capacity: 2, active: 1, listed: false})
    const {taskId: next} = await submitTask(submitter, {spec})
    await assert.rejects(claimTask(solver, {taskId: next, secretHash: zeroHash}), (error: unknown) => isRevert(error, 'NotListed'))
    await assert.rejects(withdrawOffer(solver), (error: unknown) => isRevert(error, 'NotListed'))
  })

  it('expireTask: a claimed task past its training deadline times out (typed outcome), the solver loses timeoutSlashBps of its stake, the task reopens', async () => {
    await ensureRegistered(solver, {role: 'solver', tasks: 2})
    await setOffer(solver, {ask: 1n, capacity: 2})
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    await claimTask(solver, {taskId, secretHash: zeroHash})
    // training deadline = 1 s + ceil(workUnits / 1e12) s = 2 s.
    await submitter.publicClient.request({method: 'evm_increaseTime', params: ['0x3']} as never)
    await submitter.publicClient.request({method: 'evm_mine', params: []} as never)
    await assert.rejects(
      commitProof(solver, {taskId, proofRoot: zeroHash, manifestHash: zeroHash, checkpointCount: 2, checkpointInterval: 1, totalSteps: 1, sealedHonest: zeroHash}),
      (error: unknown) => isRevert(error, 'DeadlinePassed'),
    )
    const expired = await expireTask(submitter, {taskId})
    assert.deepEqual(expired.outcome, {type: 'timed-out', solver: solver.account.address, slashed: parseEther('0.25')})
    const task = await getTask(submitter, {taskId})
    assert.deepEqual([task.status, task.attempts], ['Submitted', 1])
    // Unclaimed past its claim deadline: an expiry with the whole escrow refunded.
    await submitter.publicClient.request({method: 'evm_increaseTime', params: ['0x1000']} as never)
    await submitter.publicClient.request({method: 'evm_mine', params: []} as never)
    const gone = await expireTask(submitter, {taskId})
    assert.deepEqual(gone.outcome, {type: 'expired', fromStatus: 'Submitted', refunded: task.escrow})
  })

  it('pruneOffer: once the solver unbonds the stake behind its offer, anyone unlists it; OfferBacked before', async () => {
    await ensureRegistered(solver, {role: 'solver', tasks: 2})
    await setOffer(solver, {ask: 1n, capacity: 2})
    await assert.rejects(pruneOffer(submitter, {solver: solver.account.address}), (error: unknown) => isRevert(error, 'OfferBacked'))
    const [free] = await solver.publicClient.readContract({address: solver.contracts.registry, abi: roleRegistryAbi, functionName: 'stakeOf', args: [solver.account.address]})
    await sendContractTransaction(solver, {address: solver.contracts.registry, abi: roleRegistryAbi, functionName: 'requestUnbond', args: [free]})
    await pruneOffer(submitter, {solver: solver.account.address})
    assert.equal((await getOffer(submitter, {solver: solver.account.address})).listed, false)
    assert.equal((await getMarketState(submitter)).capacity, 0n)
  })
})
