import assert from 'node:assert/strict'

import {loadJobSpec} from '../../src/ml/spec/index.js'
import {runSolver} from '../../src/actors/solver.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {getTask} from '../../src/protocol/getTask.js'
import {submitTask} from '../../src/protocol/submitTask.js'
import {runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'
import {mine, startMiner} from '../helpers/mining.js'

describe('gensyn solve / verify: adversary flags (real processes)', function () {
  this.timeout(120_000)

  it('verify --strategy colluding without --collude-with: one line, exit code 2', async () => {
    const run = await runGensyn(['verify', '--strategy', 'colluding', '--state-dir', '/nonexistent'])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim().split('\n').length, 1)
    assert.match(String(run.stderr), /--collude-with: expected a partner solver address with --strategy colluding/)
  })

  it('verify --collude-with a malformed address, or with another strategy: one line, exit code 2', async () => {
    const bad = await runGensyn(['verify', '--strategy', 'colluding', '--collude-with', '0x1234', '--state-dir', '/nonexistent'])
    assert.equal(bad.exitCode, 2)
    assert.match(String(bad.stderr), /--collude-with: expected an address \(0x \+ 40 hex\), got 0x1234/)
    const honest = await runGensyn(['verify', '--collude-with', `0x${'11'.repeat(20)}`, '--state-dir', '/nonexistent'])
    assert.equal(honest.exitCode, 2)
    assert.match(String(honest.stderr), /--collude-with: only taken with --strategy colluding, got --strategy honest/)
  })

  it('verify --proof with a chain strategy, and an unknown dispute stance, are refused with exit code 2', async () => {
    const offline = await runGensyn(['verify', '--proof', '/nonexistent', '--strategy', 'lazy'])
    assert.equal(offline.exitCode, 2)
    assert.match(String(offline.stderr), /--strategy: lazy plays on a chain/)
    const stance = await runGensyn(['solve', '--dispute-stance', 'sulk', '--state-dir', '/nonexistent'])
    assert.equal(stance.exitCode, 2)
    assert.match(String(stance.stderr), /dispute-stance/)
  })

  describe('on a local devnet', () => {
    let devnet: LocalDevnet

    before(async () => {
      devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1}, 0, {config: {forcedErrorBps: 0}})
    })
    after(() => devnet?.stop())

    it('verify --strategy lazy --json: accepts a committed proof without replaying, and says so in its events', async () => {
      const submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
      const solver = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
      const {taskId} = await submitTask(submitter, {spec: await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')})
      // The solver waits for the block after its claim's successor: make blocks while it trains.
      const stopMiner = startMiner(submitter, 200)
      try {
        await runSolver({connection: solver, backend: 'wasm', loop: false})
        await mine(submitter, 2)
      } finally {
        await stopMiner()
      }

      const run = await runGensyn(['verify', '--account', '3', '--strategy', 'lazy', '--json', '--state-dir', devnet.stateDir])
      assert.equal(run.exitCode, 0, String(run.stderr))
      const events = String(run.stdout)
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as {type: string; replayed?: boolean; accepted?: boolean; strategy?: string})
      assert.equal(events.find((event) => event.type === 'ready')?.strategy, 'lazy')
      assert.equal(events.some((event) => event.type === 'segment'), false)
      const verdict = events.find((event) => event.type === 'verdict')
      assert.deepEqual({accepted: verdict?.accepted, replayed: verdict?.replayed}, {accepted: true, replayed: false})
      const task = await getTask(submitter, {taskId})
      assert.deepEqual({status: task.status, accepted: task.accepted, distance: task.distance}, {status: 'Verified', accepted: true, distance: 0n})
    })
  })
})
