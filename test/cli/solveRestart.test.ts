import assert from 'node:assert/strict'
import path from 'node:path'
import {createInterface} from 'node:readline'

import {loadJobSpec} from '../../src/ml/spec/index.js'
import {trainJob} from '../../src/ml/train/index.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {getTask} from '../../src/protocol/getTask.js'
import {submitTask} from '../../src/protocol/submitTask.js'
import {readSolverState} from '../../src/actors/solverState.js'
import {createLocalStore} from '../../src/store/index.js'
import {runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'
import {startMiner} from '../helpers/mining.js'

type SolverLine = {type: string; taskId?: string; step?: number}

/**
 * docs/market.md, section 5: a solver that restarts before its deadline resumes its task from its last stored
 * checkpoint. Here the solver is a real `gensyn solve` process, killed with SIGKILL (no clean-up of any kind)
 * in the middle of training, then started again.
 */
describe('gensyn solve: a process killed mid-task (SIGKILL) resumes from its last stored checkpoint', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let stopMiner: (() => Promise<void>) | undefined

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 0}, 0, {config: {forcedErrorBps: 0}})
  })
  after(async () => {
    await stopMiner?.()
    await devnet?.stop()
  })

  it('the restarted process does not claim again, resumes after step 0 and commits the uninterrupted proof', async () => {
    const submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    const solverAddress = devnet.accounts[2]!.address
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const interval = spec.proof.checkpointInterval
    const {taskId} = await submitTask(submitter, {spec})
    // commitProof needs blocks after the claim: the devnet of this test automines only transactions.
    stopMiner = startMiner(submitter, 250)

    // First process: killed as soon as it says a checkpoint after step 0 is stored.
    const first = runGensyn(['solve', '--account', '2', '--json', '--state-dir', devnet.stateDir])
    const seen: SolverLine[] = []
    let killedAfter: number | undefined
    createInterface({input: first.stdout!}).on('line', (line) => {
      if (!line.startsWith('{')) return
      const event = JSON.parse(line) as SolverLine
      seen.push(event)
      if (event.type === 'checkpoint' && (event.step ?? 0) > 0 && killedAfter === undefined) {
        killedAfter = event.step
        first.kill('SIGKILL')
      }
    })
    const firstExit = await first
    assert.equal(firstExit.signal, 'SIGKILL', `the first process was not killed:\n${String(firstExit.stderr)}`)
    assert.ok(killedAfter !== undefined && killedAfter >= interval)
    assert.ok(seen.some((event) => event.type === 'claimed' && event.taskId === String(taskId)))
    assert.equal(seen.some((event) => event.type === 'committed'), false, 'it committed before the kill')
    const claimed = await getTask(submitter, {taskId})
    assert.equal(claimed.status, 'Claimed')
    const saved = await readSolverState(devnet.stateDir, solverAddress, taskId)
    const lastSaved = saved?.checkpoints.at(-1)?.step ?? 0
    assert.ok(lastSaved >= killedAfter, `the state file ends at step ${lastSaved}, the process said ${killedAfter} was stored`)

    // Second process: picks its claimed task back up from the state file and the blob store.
    const second = await runGensyn(['solve', '--account', '2', '--json', '--state-dir', devnet.stateDir])
    assert.equal(second.exitCode, 0, String(second.stderr))
    const events = String(second.stdout)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as SolverLine)
    const resumed = events.find((event) => event.type === 'resumed')
    assert.deepEqual(resumed, {role: 'solver', type: 'resumed', taskId: String(taskId), step: lastSaved})
    assert.ok(lastSaved > 0)
    assert.equal(events.some((event) => event.type === 'claimed'), false, 'it claimed again instead of resuming')
    const trained = events.flatMap((event) => (event.type === 'progress' ? [event.step ?? 0] : []))
    assert.ok(trained.length > 0 && Math.min(...trained) > lastSaved, `the second process retrained from step ${Math.min(...trained)}`)

    const task = await getTask(submitter, {taskId})
    assert.equal(task.status, 'Committed')
    assert.equal(task.totalSteps, BigInt(spec.training.steps))
    const uninterrupted = await trainJob({spec, store: createLocalStore(path.join(devnet.stateDir, 'reference-store'))})
    assert.equal(task.proofRoot, uninterrupted.proofRoot)
  })
})
