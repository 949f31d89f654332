import assert from 'node:assert/strict'
import path from 'node:path'

import {type Hex, keccak256, toHex} from 'viem'

import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {taskMarketAbi} from '../chain/generated/index.js'
import {loadJobSpec} from '../ml/spec/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {connect, requireSigner, type SignedConnection} from './connect.js'
import {ensureRegistered} from './ensureRegistered.js'
import {isRevert} from './errors.js'
import {getTask} from './getTask.js'
import {claimTask, secretHashOf} from './marketActions.js'
import {setOffer} from './solverBook.js'
import {submitTask} from './submitTask.js'
import {chainStates, readTaskState, withTaskState} from './taskState.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')

/** gensyn's side of the market's state hash (docs/market.md, "What a task stores"), against a real anvil. */
describe('protocol: task states read from TaskState events and put in place (real anvil, deployed contracts)', function () {
  this.timeout(60_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let first: SignedConnection
  let second: SignedConnection

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 2, verifiers: 0}, 0, {market: {priceEpochBlocks: 100_000}})
    submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    first = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
    second = requireSigner(await connect({stateDir: devnet.stateDir, account: 3}))
    for (const solver of [first, second]) {
      await ensureRegistered(solver, {role: 'solver', tasks: 3})
      await setOffer(solver, {ask: 1n, capacity: 3})
    }
  })
  after(() => devnet?.stop())

  const secret = (label: string): Hex => keccak256(toHex(label))

  it('a claim that loses a race in one block is built again on the new state and ends in the market\'s own error, InvalidStatus', async () => {
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const rpc = (method: string, params: unknown[] = []) => first.publicClient.request({method, params} as never) as Promise<unknown>
    const pending = async () => BigInt(((await rpc('txpool_status')) as {pending: Hex}).pending)
    const untilPending = async (count: bigint) => {
      for (let i = 0; i < 400 && (await pending()) < count; i++) await new Promise((resolve) => setTimeout(resolve, 25))
      assert.equal(await pending(), count, `${count} transactions in the pool`)
    }
    await rpc('evm_setAutomine', [false])
    try {
      // The second solver's claim is built on the task as it is and waits in the pool; the first solver's, built on
      // the same state with a tip that puts it first in the block, goes in after it. One block mines both.
      const losing = claimTask(second, {taskId, secretHash: secretHashOf(secret('second'))}).then(
        () => 'claimed',
        (error: unknown) => error,
      )
      await untilPending(1n)
      const args = await withTaskState(chainStates({client: first.publicClient, market: first.contracts.market}), 'claimTask', [taskId, secretHashOf(secret('first'))])
      const tip = 100n * 10n ** 9n
      const firstHash = await first.walletClient.writeContract({
        address: first.contracts.market,
        abi: taskMarketAbi,
        functionName: 'claimTask',
        args: args as never,
        account: first.account,
        chain: null,
        gas: 1_000_000n,
        maxPriorityFeePerGas: tip,
        maxFeePerGas: 10n * tip,
      })
      await untilPending(2n)
      await rpc('anvil_mine', ['0x1'])
      const error = await losing
      assert.ok(isRevert(error, 'InvalidStatus'), `expected InvalidStatus, got ${String(error)}`)

      const block = await first.publicClient.getBlock({blockTag: 'latest', includeTransactions: true})
      const receipts = await Promise.all(block.transactions.map((transaction) => first.publicClient.getTransactionReceipt({hash: transaction.hash})))
      assert.deepEqual(
        receipts.map((receipt) => [receipt.transactionHash === firstHash, receipt.status]),
        [
          [true, 'success'],
          [false, 'reverted'],
        ],
        'both claims in one block, the second reverted on chain (StaleTask) before it was built again',
      )
      assert.equal((await getTask(first, {taskId})).solver, first.account.address)
    } finally {
      await rpc('evm_setAutomine', [true])
    }
  })

  it('remembers what it read: a second read of an unchanged chain scans no log, a change is read from its block on', async () => {
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const requests: string[] = []
    const client = new Proxy(submitter.publicClient, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        return typeof value === 'function' && typeof key === 'string' ? (...args: unknown[]) => (requests.push(key), value.apply(target, args)) : value
      },
    })
    const states = chainStates({client, market: submitter.contracts.market, fromBlock: devnet.deployBlock})
    const submitted = await states(taskId)
    assert.deepEqual(submitted, await readTaskState({client: submitter.publicClient, market: submitter.contracts.market}, taskId))
    const scans = () => requests.filter((request) => request === 'getContractEvents').length
    const afterFirst = scans()
    assert.deepEqual(await states(taskId), submitted)
    assert.equal(scans(), afterFirst, 'no block since the last read: no log scanned')

    await claimTask(second, {taskId, secretHash: secretHashOf(secret('remembered'))})
    const claimed = await states(taskId)
    assert.notDeepEqual(claimed, submitted)
    assert.deepEqual(claimed, await readTaskState({client: submitter.publicClient, market: submitter.contracts.market}, taskId))
    assert.equal(scans(), afterFirst + 1, 'one scan of the blocks since')
  })

  it('forgets what it read when the chain it read is reverted under it, and reads the task again', async () => {
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const states = chainStates({client: submitter.publicClient, market: submitter.contracts.market, fromBlock: devnet.deployBlock})
    const submitted = await states(taskId)
    const snapshot = await submitter.publicClient.request({method: 'evm_snapshot', params: []} as never)
    await claimTask(second, {taskId, secretHash: secretHashOf(secret('reverted'))})
    const claimed = await states(taskId)
    assert.notDeepEqual(claimed, submitted)
    await submitter.publicClient.request({method: 'evm_revert', params: [snapshot]} as never)
    assert.deepEqual(await states(taskId), submitted, 'the state before the reverted claim')
    // Blocks mined again to past the reverted height: another chain at the same numbers.
    await submitter.publicClient.request({method: 'anvil_mine', params: ['0x3']} as never)
    assert.deepEqual(await states(taskId), submitted)
  })
})
