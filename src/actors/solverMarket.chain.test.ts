import assert from 'node:assert/strict'
import path from 'node:path'

import {taskMarketAbi} from '../chain/generated/index.js'
import {escrowFor} from '../ml/estimate/escrowFor.js'
import {estimateWork} from '../ml/estimate/estimateWork.js'
import {canonicalSpecBytes, loadJobSpec, specHash} from '../ml/spec/index.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {getTask} from '../protocol/getTask.js'
import {sendContractTransaction} from '../protocol/sendContractTransaction.js'
import {getMarketParams, getMarketState} from '../protocol/solverBook.js'
import {submitTask} from '../protocol/submitTask.js'
import {packageRoot} from '../util/packageRoot.js'
import {runSolver, type SolverEvent} from './solver.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {startMiner} from '../../test/helpers/mining.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')
const initialPrice = 10_000_000_000_000n

/**
 * The solver's side of docs/market.md, section 3, against a real SolverBook whose price steps every block: it
 * lists while the price is at least its ask, withdraws after a read below it, lists again when the price is
 * back and claims at a price at least its ask; and it never claims a task that declares less work than its
 * spec needs.
 */
describe('runSolver in the market (real anvil, real SolverBook)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let solver: SignedConnection
  let stopMiner: (() => Promise<void>) | undefined

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0}, 0, {
      config: {forcedErrorBps: 0},
      market: {initialPrice, priceFloor: 1_000_000_000_000n, priceEpochBlocks: 1},
    })
    submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    solver = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
    // A block every 200 ms: the price steps each block, and commitProof needs blocks after the claim.
    stopMiner = startMiner(submitter, 200)
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  it('lists at its ask, withdraws when the price falls below it, lists again when demand lifts the price, and claims at a price at least its ask', async () => {
    const ask = initialPrice
    const events: SolverEvent[] = []
    let submitted: Promise<bigint> | undefined
    const solved = await runSolver({
      connection: solver,
      backend: 'wasm',
      loop: false,
      pollMs: 200,
      ask,
      onEvent(event) {
        events.push(event)
        // With no demand the price falls below the ask; a task (demand, no listed capacity) lifts it back.
        if (event.type === 'offer-withdrawn' && !submitted) submitted = loadJobSpec(smokeMlp).then(async (spec) => (await submitTask(submitter, {spec})).taskId)
      },
    })
    const taskId = await submitted
    assert.ok(taskId !== undefined, `the solver never withdrew its offer: ${events.map((event) => event.type).join(', ')}`)
    const market = events.filter((event) => ['offer-listed', 'offer-withdrawn', 'claimed', 'committed'].includes(event.type)).map((event) => event.type)
    const claimedAt = market.indexOf('claimed')
    assert.deepEqual(market.slice(0, claimedAt + 1), ['offer-listed', 'offer-withdrawn', 'offer-listed', 'claimed'], market.join(', '))
    assert.equal(market.at(-1), 'committed', market.join(', '))
    // The price steps every block while it trains: on a loaded machine training spans more blocks, and the price can
    // cross its ask again (CI run 26 saw a withdrawal there). Only offer moves may come between claim and commit.
    assert.ok(
      market.slice(claimedAt + 1, -1).every((type) => type === 'offer-withdrawn' || type === 'offer-listed'),
      market.join(', '),
    )
    for (const event of events) {
      if (event.type === 'offer-listed') assert.ok(event.price >= ask, `listed at ${event.price}, below its ask ${ask}`)
      if (event.type === 'offer-withdrawn') assert.ok(event.price < ask && event.reason === 'price', `withdrew at ${event.price}`)
    }
    const claimed = events.find((event) => event.type === 'claimed')
    assert.ok(claimed?.type === 'claimed' && claimed.price >= ask)
    assert.equal(solved[0]?.taskId, taskId)
    const task = await getTask(solver, {taskId})
    assert.equal(task.price, claimed.price)
    assert.equal(task.status, 'Committed')
  })

  it('skips, with a warning, a task that declares fewer work units than its spec needs', async () => {
    const spec = await loadJobSpec(smokeMlp)
    const {workUnits} = estimateWork(spec)
    const declared = workUnits / 2n
    await submitter.store.put(canonicalSpecBytes(spec))
    // Submitted straight to the contract: the CLI would never declare less than the estimate. At the ceiling: with
    // the first test's task still active the book's demand runs ahead of its capacity and the price climbs 12.5 %
    // a block; a task at the spec's maxPrice (2x the start) is out of reach within a second or two, and a solver
    // that started late on a busy machine skipped it silently, before reading its work units.
    const maxPrice = (await getMarketParams(submitter)).priceCeiling
    const transaction = await sendContractTransaction(submitter, {
      address: submitter.contracts.market,
      abi: taskMarketAbi,
      functionName: 'submitTask',
      args: [specHash(spec), declared, BigInt(spec.training.steps), maxPrice, 0n, []],
      value: escrowFor(declared, maxPrice, 2000),
    })
    const taskId = (await submitter.publicClient.readContract({address: submitter.contracts.market, abi: taskMarketAbi, functionName: 'taskCount'})) as bigint
    assert.equal(transaction.receipt.status, 'success')
    assert.ok((await getMarketState(submitter)).price > 0n)

    const stop = new AbortController()
    const events: SolverEvent[] = []
    const giveUp = setTimeout(() => stop.abort(), 30_000)
    await runSolver({
      connection: solver,
      backend: 'wasm',
      loop: true,
      pollMs: 200,
      // The first test's task is still active on its offer (until it settles): room for one more.
      capacity: 2,
      signal: stop.signal,
      onEvent(event) {
        events.push(event)
        if (event.type === 'warning' && event.taskId === taskId) setTimeout(() => stop.abort(), 1000)
      },
    })
    clearTimeout(giveUp)
    const warning = events.find((event) => event.type === 'warning' && event.taskId === taskId)
    assert.ok(warning?.type === 'warning')
    assert.match(warning.message, new RegExp(`declares ${declared} work units, its spec needs ${workUnits} by our estimate: not claimed`))
    assert.equal(events.some((event) => event.type === 'claimed' && event.taskId === taskId), false)
    assert.equal((await getTask(solver, {taskId})).status, 'Submitted')
  })
})
