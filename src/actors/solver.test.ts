import assert from 'node:assert/strict'
import path from 'node:path'

import {loadJobSpec} from '../ml/spec/index.js'
import {trainJob} from '../ml/train/index.js'
import {createLocalStore} from '../store/index.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {getTask} from '../protocol/getTask.js'
import {submitTask} from '../protocol/submitTask.js'
import {packageRoot} from '../sim/scenario.js'
import {runSolver, type SolverEvent} from './solver.js'
import {readSolverState} from './solverState.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'

describe('runSolver (real anvil, real training)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let stateDir: string
  let submitter: SignedConnection
  let solver: SignedConnection

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0})
    stateDir = devnet.stateDir
    submitter = requireSigner(await connect({stateDir, account: 1}))
    solver = requireSigner(await connect({stateDir, account: 2}))
  })
  after(() => devnet?.stop())

  it('resumes an interrupted task from its last stored checkpoint instead of step 0', async () => {
    const spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    const {taskId} = await submitTask(submitter, spec)
    const interval = spec.proof.checkpointInterval

    // First run: Ctrl-C (an abort) once the second checkpoint after step 0 is stored.
    const interrupt = new AbortController()
    const firstRun: SolverEvent[] = []
    const solvedFirst = await runSolver({
      connection: solver,
      backend: 'wasm',
      loop: false,
      signal: interrupt.signal,
      onEvent(event) {
        firstRun.push(event)
        if (event.type === 'checkpoint' && event.step === 2 * interval) interrupt.abort()
      },
    })
    assert.deepEqual(solvedFirst, [])
    assert.equal((await getTask(solver, taskId)).status, 'Claimed')
    const saved = await readSolverState(stateDir, solver.account.address, taskId)
    assert.deepEqual(
      saved?.checkpoints.map((checkpoint) => checkpoint.step),
      [0, interval, 2 * interval],
    )

    // Second run: picks its own claimed task back up and trains only the remaining steps.
    const secondRun: SolverEvent[] = []
    const [solved] = await runSolver({connection: solver, backend: 'wasm', loop: false, onEvent: (event) => secondRun.push(event)})
    assert.equal(solved?.taskId, taskId)
    assert.deepEqual(secondRun.find((event) => event.type === 'resumed'), {type: 'resumed', taskId, step: 2 * interval})
    const steps = secondRun.flatMap((event) => (event.type === 'progress' ? [event.step] : []))
    assert.ok(steps.length > 0 && Math.min(...steps) > 2 * interval, `the second run retrained from step ${Math.min(...steps)}`)
    assert.equal(secondRun.some((event) => event.type === 'claimed'), false, 'it claimed again instead of resuming')

    // The resumed proof is the same proof an uninterrupted run commits.
    const task = await getTask(solver, taskId)
    assert.equal(task.status, 'Committed')
    assert.equal(task.checkpointCount, Math.ceil(spec.training.steps / interval) + 1)
    const uninterrupted = await trainJob({spec, store: createLocalStore(path.join(stateDir, 'reference-store'))})
    assert.equal(task.proofRoot, uninterrupted.proofRoot)
  })
})
