import assert from 'node:assert/strict'
import path from 'node:path'

import {loadJobSpec} from '../ml/spec/index.js'
import {profileJob} from '../pol/index.js'
import {connect, requireSigner, type SignedConnection} from '../protocol/connect.js'
import {getTask} from '../protocol/getTask.js'
import {postProfile} from '../protocol/postProfile.js'
import {submitTask} from '../protocol/submitTask.js'
import {packageRoot} from '../sim/scenario.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {runSolver} from './solver.js'
import {runVerifier, type VerifierEvent} from './verifier.js'

describe('runVerifier in tolerance mode (real anvil, cpu training, wasm replay)', function () {
  this.timeout(180_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let solver: SignedConnection
  let verifier: SignedConnection

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1})
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    ;[submitter, solver, verifier] = await Promise.all([at(1), at(2), at(3)])
  })
  after(() => devnet?.stop())

  it('skips a cpu proof until a threshold is posted, then accepts it within that threshold', async () => {
    const spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    const {taskId} = await submitTask(submitter, spec)
    await runSolver({connection: solver, backend: 'cpu', loop: false})
    assert.equal((await getTask(verifier, taskId)).status, 'Committed')
    // The randomness comes from a block after the commit; on automine nothing else would make one.
    for (let block = 0; block < 2; block++) await verifier.publicClient.request({method: 'evm_mine'} as never)

    // No profile posted for this model on {cpu, wasm} yet: nothing to judge distances against.
    const skipped: VerifierEvent[] = []
    const stop = new AbortController()
    await runVerifier({
      connection: verifier,
      backend: 'wasm',
      mode: 'tolerance',
      loop: true,
      signal: stop.signal,
      onEvent(event) {
        skipped.push(event)
        if (event.type === 'skipped') stop.abort()
      },
    })
    assert.match((skipped.find((event) => event.type === 'skipped') as {reason: string}).reason, /no threshold posted/)
    assert.equal((await getTask(verifier, taskId)).status, 'Committed')

    // Profile on another seed (so the thresholds are not fitted to this proof) and post it.
    const profile = await profileJob({spec: {...spec, training: {...spec.training, seed: spec.training.seed + 1}}, runtimes: ['cpu', 'wasm'], segments: 2})
    await postProfile(verifier, spec, profile)

    const events: VerifierEvent[] = []
    const [verified] = await runVerifier({connection: verifier, backend: 'wasm', mode: 'tolerance', loop: false, onEvent: (event) => events.push(event)})
    assert.equal(verified?.accepted, true)
    const task = await getTask(verifier, taskId)
    assert.equal(task.status, 'Verified')
    assert.equal(task.accepted, true)
    assert.ok(task.distance > 0n, 'cpu and wasm replays matched bit for bit: nothing was tolerated')
  })
})
