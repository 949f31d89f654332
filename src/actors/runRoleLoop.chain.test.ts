import assert from 'node:assert/strict'
import path from 'node:path'

import {loadJobSpec} from '../ml/spec/index.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {ContractRevertError} from '../protocol/errors.js'
import {expireTask} from '../protocol/marketActions.js'
import {submitTask} from '../protocol/submitTask.js'
import type {Task} from '../protocol/types.js'
import {packageRoot} from '../util/packageRoot.js'
import {type RoleLoopParameters, runRoleLoop} from './runRoleLoop.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'

/**
 * A role loop meets a task that moved on under it (issue 19: a solver's loop died on `InvalidSecret` after a
 * timeout reassigned its task). The work here sends a real transaction that reverts on a real market: expiring a
 * task before its deadline (`DeadlineNotReached`).
 */
describe('runRoleLoop: a revert on one task (real anvil)', function () {
  this.timeout(60_000)
  let devnet: LocalDevnet
  let solver: SignedConnection
  let taskId: bigint

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0}, 0, {config: {forcedErrorBps: 0}})
    const submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    solver = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
    taskId = (await submitTask(submitter, {spec: await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))})).taskId
  })
  after(() => devnet?.stop())

  /** A loop whose every pick is the submitted task and whose work reverts; aborted after `picks` picks. */
  function looping(loop: boolean, picks: number) {
    const abort = new AbortController()
    const seen = {picks: 0, works: 0, reverted: [] as {taskId: bigint; errorName: string; message: string}[]}
    const parameters: RoleLoopParameters<bigint> = {
      options: {connection: solver, backend: 'wasm', loop, pollMs: 20, signal: abort.signal},
      isOwnVerified: () => false,
      pick(tasks: Task[]) {
        if (++seen.picks >= picks) abort.abort()
        const task = tasks.find((candidate) => candidate.id === taskId)
        return task ? {task, held: false} : undefined
      },
      async work(task: Task) {
        seen.works++
        await expireTask(solver, {taskId: task.id})
        return task.id
      },
      onSettled: () => {},
      onTaskReverted: ({taskId: id, error, message}) => seen.reverted.push({taskId: id, errorName: error.errorName, message}),
    }
    return {run: runRoleLoop(parameters), seen}
  }

  it('in a loop, reports the revert, leaves that attempt alone and keeps polling', async () => {
    const {run, seen} = looping(true, 5)
    assert.deepEqual(await run, [])
    assert.deepEqual(
      seen.reverted.map(({taskId: id, errorName}) => ({taskId: id, errorName})),
      [{taskId, errorName: 'DeadlineNotReached'}],
    )
    assert.match(seen.reverted[0]!.message, /^expire reverted: DeadlineNotReached\(.*\): left to the protocol's timeouts/)
    assert.equal(seen.works, 1, 'the same attempt is not worked on again')
    assert.ok(seen.picks >= 5, 'the loop went on after the revert')
  })

  it('a one-task run throws the revert (the caller asked for that task)', async () => {
    const {run, seen} = looping(false, 5)
    await assert.rejects(run, (error: unknown) => error instanceof ContractRevertError && error.errorName === 'DeadlineNotReached')
    assert.deepEqual(seen.reverted, [])
  })
})
