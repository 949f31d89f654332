import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {Hex} from 'viem'

import {type Anvil, createAnvil} from '../../src/chain/anvil.js'
import {createClients} from '../../src/chain/clients.js'
import {deployContracts} from '../../src/chain/deployContracts.js'
import {writeDevnetConfig} from '../../src/chain/devnetConfig.js'
import {loadJobSpec} from '../../src/ml/spec/index.js'
import {connect, requireSigner} from '../../src/protocol/connect.js'
import {getThreshold, modelClassOf, runtimeClassOf} from '../../src/protocol/postProfile.js'
import {submitTask} from '../../src/protocol/submitTask.js'
import {devnetAccounts} from '../../src/sim/devnetAccounts.js'
import {runGensyn} from '../helpers/cli.js'

describe('gensyn profile --task: thresholds posted on chain (real anvil, real processes)', function () {
  this.timeout(120_000)
  let anvil: Anvil
  let stateDir: string

  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-profile-'))
    const accounts = devnetAccounts({submitters: 1, solvers: 0, verifiers: 1})
    anvil = createAnvil({accounts: accounts.length})
    await anvil.start()
    const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: accounts[0]!.privateKey})
    const deployed = await deployContracts({publicClient, walletClient})
    await writeDevnetConfig(stateDir, {
      rpcUrl: anvil.rpcUrl,
      chainId: await publicClient.getChainId(),
      contracts: {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds},
      accounts,
      storeDir: path.join(stateDir, 'store'),
      createdAt: new Date().toISOString(),
    })
  })
  after(async () => {
    await anvil?.stop()
    await rm(stateDir, {recursive: true, force: true})
  })

  it("profiles a task's job across wasm and cpu and posts its l∞ threshold for the model and runtime class", async () => {
    const spec = await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')
    const submitter = requireSigner(await connect({stateDir, account: 1}))
    const {taskId} = await submitTask(submitter, spec)

    const run = await runGensyn(['profile', '--task', taskId.toString(), '--account', '2', '--segments', '1', '--state-dir', stateDir, '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const output = JSON.parse(String(run.stdout)) as {runtimeClass: string; thresholds: {linf: number}; posted: {profileHash: Hex; threshold: string}}
    assert.ok(output.thresholds.linf > 0)

    const onChain = await getThreshold(submitter, modelClassOf(spec), runtimeClassOf(output.runtimeClass))
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
