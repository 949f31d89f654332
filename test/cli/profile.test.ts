import assert from 'node:assert/strict'
import type {Hex} from 'viem'

import type {RuntimeId} from '../../src/ml/backend/index.js'

import {loadJobSpec} from '../../src/ml/spec/index.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {getThreshold, modelClassOf, runtimeClassOf} from '../../src/protocol/postProfile.js'
import {submitTask} from '../../src/protocol/submitTask.js'
import {runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'

describe('gensyn profile --task: thresholds posted on chain (real anvil, real processes)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let stateDir: string

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 0, verifiers: 1})
    stateDir = devnet.stateDir
  })
  after(() => devnet?.stop())

  it("profiles a task's job across wasm and cpu and posts its l∞ threshold for the model and runtime class", async () => {
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const submitter = requireSigner(await connect({stateDir, account: 1}))
    const {taskId} = await submitTask(submitter, {spec})

    const run = await runGensyn(['profile', '--task', taskId.toString(), '--account', '2', '--segments', '1', '--state-dir', stateDir, '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const output = JSON.parse(String(run.stdout)) as {runtimes: RuntimeId[]; thresholds: {linf: number}; posted: {profileHash: Hex; threshold: string}; warnings: string[]}
    assert.ok(output.thresholds.linf > 0)
    // one segment on two runtimes: 2 replays, the cpu one inexact, so the profile is flagged as too small
    assert.ok(output.warnings.some((w) => w.startsWith('thresholds from 2 honest replays, fewer than 200')), output.warnings.join('; '))

    const pair = {modelClass: modelClassOf(spec), runtimeClass: runtimeClassOf([...output.runtimes].reverse())}
    // The record is the poster's own (account 2 ran the profile); nobody else has one for the pair.
    const onChain = await getThreshold(submitter, {...pair, poster: devnet.accounts[2]!.address})
    assert.equal((await getThreshold(submitter, {...pair, poster: submitter.account.address})).threshold, 0n)
    assert.equal(onChain.threshold.toString(), output.posted.threshold)
    assert.ok(onChain.threshold > 0n)
    assert.equal(onChain.profileHash, output.posted.profileHash)
    const stored = await submitter.store.getJson<{thresholds: {linf: number}}>(onChain.profileHash)
    assert.equal(stored.thresholds.linf, output.thresholds.linf)
  })

  it('refuses --job and --task together, in one line', async () => {
    const run = await runGensyn(['profile', '--job', 'fixtures/jobs/smoke-mlp.yaml', '--task', '1', '--state-dir', stateDir])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim().split('\n').length, 1)
  })
})
