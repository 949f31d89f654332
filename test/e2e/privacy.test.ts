import assert from 'node:assert/strict'
import {existsSync, statSync} from 'node:fs'
import {mkdtemp, readdir, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import * as tf from '@tensorflow/tfjs'

import {selectBackend} from '../../src/ml/backend/selectBackend.js'
import {loadMnist} from '../../src/ml/data/loadMnist.js'
import {isAlive} from '../../src/util/processLiveness.js'
import {runGensyn} from '../helpers/cli.js'
import {findRawSamples} from '../helpers/findRawSamples.js'
import {loadExportedModel} from '../helpers/loadExportedModel.js'
import {processesMatching, waitFor} from '../helpers/processes.js'

type SubmitResult = {
  name: string
  taskId: string
  verdict: string
  testAccuracy: number
  rawTestAccuracy?: number
  privacy?: {mapping: string; data: string; keyFiles: string[]}
  tasks: {taskId: string; specHash: string}[]
}

async function submitResult(logFile: string): Promise<SubmitResult | undefined> {
  if (!existsSync(logFile)) return undefined
  const line = (await readFile(logFile, 'utf8')).trim().split('\n').filter((candidate) => candidate.startsWith('{"dryRun"')).at(-1)
  return line === undefined ? undefined : (JSON.parse(line) as SubmitResult)
}

async function rawAccuracy(modelDir: string, inputShape: number[], count: number): Promise<number> {
  await selectBackend('wasm')
  const model = await loadExportedModel(modelDir)
  const test = loadMnist({split: 'test', limit: count})
  const predicted = tf.tidy(() => tf.argMax(model.predict(tf.tensor(test.images, [count, ...inputShape])) as tf.Tensor, 1).dataSync() as Int32Array)
  model.dispose()
  let correct = 0
  for (let i = 0; i < count; i++) if (predicted[i] === test.labels[i]) correct++
  return correct / count
}

describe('private jobs on a devnet (real anvil, real actor processes, real training on mapped data)', function () {
  this.timeout(600_000)
  let dir: string
  let stateDir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-private-'))
    stateDir = path.join(dir, 'state')
  })
  after(async () => {
    if (existsSync(path.join(stateDir, 'processes.json'))) await runGensyn(['devnet', 'down', '--state-dir', stateDir, '--timeout', '10'])
    await rm(dir, {recursive: true, force: true})
  })

  it('settles both private jobs on mapped data only; the keyed models take raw inputs, the store holds no raw sample', async () => {
    const up = await runGensyn(['devnet', 'up', '--detach', '--scenario', 'fixtures/scenarios/private.yaml', '--state-dir', stateDir, '--json'])
    assert.equal(up.exitCode, 0, `up --detach failed:\n${String(up.stderr)}\n${String(up.stdout)}`)
    const detached = JSON.parse(String(up.stdout)) as {pid: number}
    const logs = path.join(stateDir, 'logs')

    // 1. Both submitters finish: their tasks settle accepted, and each scores its wrapped model on raw test data.
    const results = await waitFor(
      async () => {
        const both = await Promise.all(['submitter-1', 'submitter-2'].map((name) => submitResult(path.join(logs, `${name}.log`))))
        return both.every((result) => result !== undefined) ? (both as SubmitResult[]) : undefined
      },
      480_000,
      'both private jobs to settle',
    )
    const byName = new Map(results.map((result) => [result.name, result]))
    for (const [name, mapping] of [['private-mlp', 'orthogonal'], ['private-cnn', 'local']] as const) {
      const result = byName.get(name)
      assert.ok(result, `no result for ${name}`)
      assert.equal(result.verdict, 'accepted', `${name} was not accepted`)
      assert.equal(result.privacy?.mapping, mapping)
      assert.ok(result.rawTestAccuracy !== undefined && result.rawTestAccuracy >= 0.85, `${name}: raw test accuracy ${result.rawTestAccuracy}`)
      assert.ok(Math.abs(result.rawTestAccuracy - result.testAccuracy) <= 0.001, `${name}: ${result.rawTestAccuracy} on raw data through the mapping, ${result.testAccuracy} on mapped data`)
    }

    // 2. The workers had no raw MNIST to read (every job is private), and none of them failed for it.
    const devnetLog = await readFile(path.join(logs, 'devnet.log'), 'utf8')
    assert.match(devnetLog, /every job is private: solvers, verifiers and whistleblowers run without raw MNIST/)
    assert.deepEqual(await readdir(path.join(stateDir, 'no-raw-data')), [])
    for (const worker of ['cheater-1', 'solver-1', 'verifier-1', 'verifier-2', 'whistleblower-1'])
      assert.doesNotMatch(await readFile(path.join(logs, `${worker}.log`), 'utf8'), /MNIST file not found|"error"/, `${worker} failed`)

    // 3. models get --key: the mapping in front, raw inputs in; the same accuracy the submitter reported.
    const mlp = byName.get('private-mlp')!
    const cnn = byName.get('private-cnn')!
    const wrappedDir = path.join(dir, 'wrapped')
    const get = await runGensyn(['models', 'get', mlp.taskId, '--key', mlp.privacy!.keyFiles[0]!, '--out', wrappedDir, '--state-dir', stateDir, '--json'])
    assert.equal(get.exitCode, 0, String(get.stderr))
    assert.equal((JSON.parse(String(get.stdout)) as {inputs: string}).inputs, 'raw')
    assert.ok(Math.abs((await rawAccuracy(wrappedDir, [784], 10000)) - mlp.rawTestAccuracy!) <= 0.001)
    // without the key the rotated model is lost on raw images
    const bareDir = path.join(dir, 'bare')
    const bare = await runGensyn(['models', 'get', mlp.taskId, '--out', bareDir, '--state-dir', stateDir, '--json'])
    assert.equal((JSON.parse(String(bare.stdout)) as {inputs: string}).inputs, 'mapped')
    const bareAccuracy = await rawAccuracy(bareDir, [784], 10000)
    assert.ok(bareAccuracy < 0.5, `the orthogonal job's model alone reads raw images at ${bareAccuracy}`)
    // one task's key does not open another's model
    const wrongKey = await runGensyn(['models', 'get', cnn.taskId, '--key', mlp.privacy!.keyFiles[0]!, '--out', path.join(dir, 'x'), '--state-dir', stateDir])
    assert.equal(wrongKey.exitCode, 1)
    assert.match(String(wrongKey.stderr).trim(), new RegExp(`^Error: task ${cnn.taskId}: the key file is for tasks ${mlp.taskId} `))

    // 4. The store holds no raw sample of either job, and no key or secret.
    const store = path.join(stateDir, 'store')
    assert.deepEqual(findRawSamples(store, {train: 4000, test: 10000}), [])
    const secrets: string[] = []
    for (const account of await readdir(path.join(stateDir, 'keys'))) {
      secrets.push((await readFile(path.join(stateDir, 'keys', account, 'secret'), 'utf8')).trim())
      for (const file of (await readdir(path.join(stateDir, 'keys', account))).filter((name) => name.startsWith('task-')))
        secrets.push((JSON.parse(await readFile(path.join(stateDir, 'keys', account, file), 'utf8')) as {key: string}).key)
    }
    assert.equal(secrets.length, 4, `expected 2 secrets and 2 keys, got ${secrets.length}`)
    for (const blob of await readdir(store, {recursive: true})) {
      const file = path.join(store, blob)
      if (!statSync(file).isFile()) continue
      const bytes = await readFile(file)
      for (const secret of secrets) {
        assert.equal(bytes.indexOf(secret.slice(2)), -1, `${blob} holds a key or secret as hex`)
        assert.equal(bytes.indexOf(Buffer.from(secret.slice(2), 'hex')), -1, `${blob} holds a key or secret as bytes`)
      }
    }

    // 5. down: the cheater was caught on mapped data, money conserved, nothing left running.
    const down = await runGensyn(['devnet', 'down', '--state-dir', stateDir, '--json'])
    assert.equal(down.exitCode, 0, String(down.stderr))
    assert.ok(!isAlive(detached.pid))
    const report = JSON.parse(await readFile(path.join(stateDir, 'report.json'), 'utf8')) as {
      accounts: {name: string; slashed: string}[]
      conservation: {ok: boolean}
    }
    assert.ok(BigInt(report.accounts.find((account) => account.name === 'cheater-1')?.slashed ?? '0') > 0n, 'the skip-steps cheater was not slashed')
    assert.equal(report.conservation.ok, true)
    assert.deepEqual(processesMatching(dir), [])
  })
})
