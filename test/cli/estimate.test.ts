import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {runCommand} from '@oclif/test'
import {formatEther, parseEther} from 'viem'

import {escrowFor} from '../../src/ml/estimate/escrowFor.js'
import {estimateWork} from '../../src/ml/estimate/estimateWork.js'
import {defaultWorkTable} from '../../src/ml/estimate/workTable.js'
import {loadJobSpec} from '../../src/ml/spec/loadJobSpec.js'
import {maxPriceWei} from '../../src/ml/spec/maxPriceWei.js'
import {createClients} from '../../src/chain/clients.js'
import {readDevnetConfig} from '../../src/chain/devnetConfig.js'
import {protocolConfigAbi} from '../../src/chain/generated/index.js'
import {waitForReceipt} from '../../src/chain/waitForReceipt.js'
import {repoRoot, runGensyn} from '../helpers/cli.js'
import {type LocalDevnet, startLocalDevnet} from '../helpers/localDevnet.js'

type EstimateJson = {
  steps: number
  flopsPerStep: number
  flopsByClass: Record<string, number>
  workUnits: string
  memoryBytes: number
  price: string
  verifierFeeBps: number
  solverPay: string
  verifierFee: string
  escrow: string
  tableSource: string
  table: Record<string, number>
  tasks?: {index: number; start: number; end: number; workUnits: string; escrow: string}[]
}

describe('gensyn estimate', function () {
  this.timeout(60_000)
  let work: string

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'gensyn-estimate-'))
  })
  after(async () => {
    await rm(work, {recursive: true, force: true})
  })

  it('--json: the estimate of the library and the escrow at payment.maxPrice with the default verifier fee', async () => {
    const {stdout, error} = await runCommand(['estimate', 'fixtures/jobs/mnist-cnn.yaml', '--json'], {root: repoRoot})
    assert.equal(error, undefined)
    const out = JSON.parse(stdout) as EstimateJson
    const spec = await loadJobSpec('fixtures/jobs/mnist-cnn.yaml')
    const estimate = estimateWork(spec)
    assert.equal(out.steps, 250)
    assert.equal(out.flopsPerStep, estimate.flopsPerStep)
    assert.deepEqual(out.flopsByClass, estimate.flopsByClass)
    assert.equal(out.workUnits, estimate.workUnits.toString())
    assert.equal(out.price, maxPriceWei(spec).toString())
    assert.equal(out.verifierFeeBps, 2000)
    assert.equal(out.escrow, escrowFor(estimate.workUnits, maxPriceWei(spec), 2000).toString())
    assert.equal(BigInt(out.solverPay) + BigInt(out.verifierFee), BigInt(out.escrow))
    assert.match(out.tableSource, /built-in/)
    assert.deepEqual(out.table, {...defaultWorkTable})
  })

  it('prints FLOPs by class, memory, work units and the fee at --price', async () => {
    const {stdout, error} = await runCommand(['estimate', 'fixtures/jobs/smoke-mlp.yaml', '--price', '0.000005', '--verifier-fee-bps', '2500'], {root: repoRoot})
    assert.equal(error, undefined)
    const units = estimateWork(await loadJobSpec('fixtures/jobs/smoke-mlp.yaml')).workUnits
    for (const row of ['matmul', 'conv', 'elementwise', 'transcendental', 'total']) assert.match(stdout, new RegExp(`^${row} `, 'm'))
    assert.match(stdout, /^memory: [\d.]+ (KiB|MiB)/m)
    assert.match(stdout, new RegExp(`^work units: [\\d.]+ per step, ${units.toLocaleString('en-US')} for the task`, 'm'))
    const escrow = escrowFor(units, parseEther('0.000005'), 2500)
    assert.match(stdout, /fee at 0\.000005 ETH per work unit \(--price\).*verifier fee \(25 %\)/)
    assert.ok(stdout.includes(`= escrow ${formatEther(escrow)} ETH`), stdout)
  })

  it("shows each task of a split job file: a third of the job's work units each", async () => {
    const job = path.join(work, 'split.yaml')
    const text = await readFile('fixtures/jobs/smoke-mlp.yaml', 'utf8')
    await writeFile(job, `${text.replace('name: smoke-mlp', 'name: smoke-split').replace('steps: 200', 'steps: 150')}split: {tasks: 3}\n`)
    const {stdout, error} = await runCommand(['estimate', job, '--json'], {root: repoRoot})
    assert.equal(error, undefined)
    const out = JSON.parse(stdout) as EstimateJson
    assert.equal(out.steps, 150)
    assert.deepEqual(out.tasks?.map((task) => [task.start, task.end]), [[0, 50], [50, 100], [100, 150]])
    for (const task of out.tasks ?? []) assert.ok(Math.abs(Number(task.workUnits) * 3 - Number(out.workUnits)) <= 3)
  })

  it('refuses a spec beyond a protocol limit in one line naming the field, exit code 2', async () => {
    const job = path.join(work, 'too-long.yaml')
    await writeFile(job, (await readFile('fixtures/jobs/smoke-mlp.yaml', 'utf8')).replace('steps: 200', 'steps: 250000'))
    const {error} = await runCommand(['estimate', job], {root: repoRoot})
    assert.equal(error?.oclif?.exit, 2)
    const run = await runGensyn(['estimate', job])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim(), 'Error: training.steps: expected at most 100000 (protocol limit maxSteps), got 250000')
    const json = await runGensyn(['estimate', job, '--json'])
    assert.equal(json.exitCode, 2)
    assert.match((JSON.parse(String(json.stdout)) as {error: {name: string; message: string}}).error.message, /^training\.steps: .*maxSteps/)
  })

  it('refuses a malformed --price in one line', async () => {
    const run = await runGensyn(['estimate', 'fixtures/jobs/smoke-mlp.yaml', '--price', '1e-5'])
    assert.equal(run.exitCode, 2)
    assert.equal(String(run.stderr).trim(), 'Error: --price: expected a decimal ETH amount per work unit like "0.00001", got "1e-5"')
  })

  describe('with a chain: the work table and verifier fee of its ProtocolConfig (real anvil)', () => {
    let devnet: LocalDevnet

    before(async () => {
      devnet = await startLocalDevnet({submitters: 0, solvers: 0, verifiers: 0})
    })
    after(() => devnet?.stop())

    it('reads the deployed table, and follows the owner changing it', async () => {
      const deployed = await runCommand(['estimate', 'fixtures/jobs/smoke-mlp.yaml', '--state-dir', devnet.stateDir, '--json'], {root: repoRoot})
      assert.equal(deployed.error, undefined)
      const before = JSON.parse(deployed.stdout) as EstimateJson
      assert.match(before.tableSource, /^ProtocolConfig on http/)
      assert.deepEqual(before.table, {...defaultWorkTable})
      assert.equal(before.verifierFeeBps, 2000)

      // the deployer owns the config: exp/log/sqrt twice as dear, a 150-step limit, a 10 % verifier fee
      const config = await readDevnetConfig(devnet.stateDir)
      const {publicClient, walletClient, account} = await createClients({rpcUrl: config.rpcUrl, privateKey: devnet.accounts[0]!.privateKey})
      const address = config.contracts.config!
      const write = async (request: Parameters<typeof walletClient.writeContract>[0]) =>
        waitForReceipt(publicClient, {hash: await walletClient.writeContract(request)})
      const table = await publicClient.readContract({address, abi: protocolConfigAbi, functionName: 'workTable'})
      await write({address, abi: protocolConfigAbi, functionName: 'setWorkTable', args: [{...table, transcendentalMilli: 8000, maxSteps: 150n}], account, chain: walletClient.chain})
      const market = await publicClient.readContract({address, abi: protocolConfigAbi, functionName: 'marketParams'})
      await write({address, abi: protocolConfigAbi, functionName: 'setMarketParams', args: [{...market, verifierFeeBps: 1000}], account, chain: walletClient.chain})

      const refused = await runGensyn(['estimate', 'fixtures/jobs/smoke-mlp.yaml', '--state-dir', devnet.stateDir])
      assert.equal(refused.exitCode, 2)
      assert.equal(String(refused.stderr).trim(), 'Error: training.steps: expected at most 150 (protocol limit maxSteps), got 200')

      const job = path.join(work, 'short.yaml')
      await writeFile(job, (await readFile('fixtures/jobs/smoke-mlp.yaml', 'utf8')).replace('steps: 200', 'steps: 150'))
      const changed = await runCommand(['estimate', job, '--state-dir', devnet.stateDir, '--json'], {root: repoRoot})
      assert.equal(changed.error, undefined)
      const after = JSON.parse(changed.stdout) as EstimateJson
      const {matmul, conv, elementwise, transcendental} = after.flopsByClass as Record<'matmul' | 'conv' | 'elementwise' | 'transcendental', number>
      assert.equal(after.table.transcendentalMilli, 8000)
      assert.equal(after.workUnits, BigInt(Math.ceil(((matmul + conv + elementwise + 8 * transcendental) * 150) / 1e6)).toString())
      assert.equal(after.verifierFeeBps, 1000)
      assert.equal(after.escrow, escrowFor(BigInt(after.workUnits), BigInt(after.price), 1000).toString())
    })
  })
})
