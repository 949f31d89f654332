import assert from 'node:assert/strict'

import {loadJobSpec} from '../../src/ml/spec/index.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {expireTask} from '../../src/protocol/expireTask.js'
import {getTask} from '../../src/protocol/getTask.js'
import {submitTask} from '../../src/protocol/submitTask.js'
import {getCredit} from '../../src/protocol/withdrawCredit.js'
import {runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'

describe('gensyn credits withdraw (real anvil, real process)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 0, verifiers: 0}, 0)
  })
  after(() => devnet?.stop())

  it('collects an expired task\'s refund to another address, then has nothing left to collect', async () => {
    const submitter = requireSigner(await connect({stateDir: devnet.stateDir, account: 1}))
    const {taskId} = await submitTask(submitter, {spec: await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')})
    const {escrow, deadline} = await getTask(submitter, {taskId})
    // Past the claim deadline (a mined block there, so that the simulation of expire sees it too).
    await submitter.publicClient.request({method: 'evm_mine', params: [`0x${(deadline + 1n).toString(16)}`]} as never)
    await expireTask(submitter, {taskId})
    assert.equal(await getCredit(submitter, {account: submitter.account.address}), escrow, 'the refund is credited, not pushed')

    const to = '0x000000000000000000000000000000000000dEaD'
    const before = await submitter.publicClient.getBalance({address: to})
    const run = await runGensyn(['credits', 'withdraw', '--account', '1', '--to', to, '--json', '--state-dir', devnet.stateDir])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const result = JSON.parse(String(run.stdout)) as {account: string; to: string; amount: string; transaction?: string}
    assert.equal(BigInt(result.amount), escrow)
    assert.match(result.transaction ?? '', /^0x[0-9a-f]{64}$/)
    assert.equal(await submitter.publicClient.getBalance({address: to}), before + escrow)

    const again = await runGensyn(['credits', 'withdraw', '--account', '1', '--state-dir', devnet.stateDir])
    assert.equal(again.exitCode, 0, String(again.stderr))
    assert.match(String(again.stdout), /nothing credited to withdraw/)
  })

  it('--to that is not an address: one line naming the flag, exit code 2', async () => {
    const run = await runGensyn(['credits', 'withdraw', '--to', '0x12', '--state-dir', devnet.stateDir])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim().split('\n').length, 1)
    assert.match(String(run.stderr), /--to: expected an address \(0x \+ 40 hex\), got 0x12/)
  })
})
