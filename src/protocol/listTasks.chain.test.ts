import assert from 'node:assert/strict'
import path from 'node:path'

import {type Hex, keccak256, toHex} from 'viem'

import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {loadJobSpec} from '../ml/spec/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {connect, type Connection, requireSigner, type SignedConnection} from './connect.js'
import {ensureRegistered} from './ensureRegistered.js'
import {isRevert} from './errors.js'
import {getTask} from './getTask.js'
import {listTasks} from './listTasks.js'
import {claimTask, secretHashOf} from './marketActions.js'
import {setOffer} from './solverBook.js'
import {submitTask} from './submitTask.js'
import {readTaskState} from './taskState.js'

const smokeMlp = path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml')

/** A call through the recording client: the method, and the contract function or event it names. */
type Call = {method: string; name?: string | undefined}

/**
 * `connection` with a public client of its own (so nothing it reads is remembered yet) that records each call made
 * through it; `before` runs ahead of the call it names, first come first.
 */
function recording(connection: Connection, before: Partial<Record<string, () => Promise<void>>> = {}): {connection: Connection; calls: Call[]} {
  const calls: Call[] = []
  const publicClient = new Proxy(connection.publicClient, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function' || typeof key !== 'string') return value
      return async (...args: unknown[]) => {
        const named = args[0] as {functionName?: string; eventName?: string} | undefined
        const name = named?.functionName ?? named?.eventName
        calls.push({method: key, name})
        const hook = before[name ?? key]
        if (hook) {
          delete before[name ?? key]
          await hook()
        }
        return value.apply(target, args)
      }
    },
  })
  return {connection: {...connection, publicClient}, calls}
}

describe('protocol: listTasks reads the whole market at one head (real anvil, deployed contracts)', function () {
  this.timeout(60_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let solver: SignedConnection

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0}, 0, {market: {priceEpochBlocks: 100_000}})
    submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    solver = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
    await ensureRegistered(solver, {role: 'solver', tasks: 3})
    await setOffer(solver, {ask: 1n, capacity: 3})
  })
  after(() => devnet?.stop())

  const secret = (label: string): Hex => secretHashOf(keccak256(toHex(label)))

  it('scans once for every task, decodes a state once, and reads a task a transaction changed from its new state', async () => {
    for (let i = 0; i < 3; i++) await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const {connection, calls} = recording(submitter)
    const count = (method: string, name?: string) => calls.filter((call) => call.method === method && call.name === name).length
    const first = await listTasks(connection)
    assert.equal(first.length, 3)
    assert.equal(count('getContractEvents', 'TaskState'), 1, 'one scan of TaskState events for the three tasks')
    assert.equal(count('readContract', 'getTask'), 3, 'each state decoded once')

    calls.length = 0
    assert.deepEqual(await listTasks(connection), first, 'an unchanged market reads the same')
    assert.equal(count('readContract', 'getTask'), 0, 'no state decoded twice')
    assert.equal(count('getContractEvents', 'TaskState'), 0, 'no block since: no scan')

    const [, second] = first
    await claimTask(solver, {taskId: second!.id, secretHash: secret('claim')})
    calls.length = 0
    const after = await listTasks(connection)
    assert.equal(count('readContract', 'getTask'), 1, 'only the claimed task decoded again')
    assert.equal(after[1]!.status, 'Claimed')
    assert.equal(after[1]!.solver, solver.account.address)
    assert.deepEqual([after[0], after[2]], [first[0], first[2]])
    // What each task reads alone, through the market's view with the state read for it.
    assert.deepEqual(after, await Promise.all(after.map((task) => getTask(submitter, {taskId: task.id}))))
  })

  it('reads a task submitted between the count and the states on its own, through the market\'s retries', async () => {
    const before = await listTasks(submitter)
    let submitted: bigint | undefined
    let landed!: () => void
    const submission = new Promise<void>((resolve) => (landed = resolve))
    // The states are read at the head before the new task's block, the count after it: the new task's state is missing.
    const {connection} = recording(submitter, {
      TaskState: async () => {
        submitted = (await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})).taskId
        landed()
      },
      taskCount: () => submission,
    })
    const tasks = await listTasks(connection)
    assert.equal(submitted, BigInt(before.length + 1))
    assert.equal(tasks.length, before.length + 1, 'the count read after the submission')
    assert.equal(tasks.at(-1)!.status, 'Submitted')
    assert.deepEqual(tasks.at(-1), await getTask(submitter, {taskId: submitted}))
  })

  it('decodes only a state the task has: a replaced one and a forged one are refused by the view (StaleTask)', async () => {
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec(smokeMlp)})
    const submitted = await readTaskState({client: submitter.publicClient, market: submitter.contracts.market}, taskId)
    await claimTask(solver, {taskId, secretHash: secret('stale')})
    const claimed = await readTaskState({client: submitter.publicClient, market: submitter.contracts.market}, taskId)
    const {connection} = recording(submitter)
    const stale = (error: unknown) => isRevert(error, 'StaleTask')
    await assert.rejects(getTask(connection, {taskId, state: submitted}), stale)
    const forged = claimed.map((word, index) => (index === 1 ? (`0x${'ff'.repeat(32)}` as Hex) : word))
    await assert.rejects(getTask(connection, {taskId, state: forged}), stale)
    assert.equal((await getTask(connection, {taskId, state: claimed})).status, 'Claimed')
  })
})
