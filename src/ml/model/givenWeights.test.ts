import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Hex} from 'viem'

import {verifyProof} from '../../pol/verifyProof.js'
import {createLocalStore} from '../../store/createLocalStore.js'
import {sha256Hex} from '../../store/sha256.js'
import {initialCheckpoint} from '../checkpoint/initialCheckpoint.js'
import {DataInputError} from '../data/errors.js'
import {loadLocalJob} from '../data/loadLocalJob.js'
import {evaluateCheckpoint} from '../evaluate/evaluateCheckpoint.js'
import {exportWeights} from '../export/exportWeights.js'
import {trainJob} from '../train/trainJob.js'

describe('fine-tuning: a job starts from given weights (model.initialWeights, safetensors)', function () {
  this.timeout(60_000)
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-finetune-'))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  it('starts from an exported model: the proof begins at its weights, replays bit for bit, and keeps what it learned', async () => {
    const store = createLocalStore(join(dir, 'store'), {fsync: false})
    const base = await loadLocalJob('fixtures/jobs/iris-npz.yaml')
    const trained = await trainJob({spec: base, store})
    const last = trained.checkpoints.at(-1)!
    await exportWeights({spec: base, checkpoint: await store.get(last.hash), checkpointHash: last.hash, proofRoot: trained.proofRoot, outDir: join(dir, 'model')})

    const job = (await readFile('fixtures/jobs/iris-npz.yaml', 'utf8'))
      .replace('name: iris-npz', 'name: iris-finetune')
      .replace('source: ../data/iris.npz', `source: ${join(process.cwd(), 'fixtures/data/iris.npz')}`)
      .replace('  inputShape: [4]', '  inputShape: [4]\n  initialWeights: {source: model/model.safetensors}')
      .replace('steps: 300', 'steps: 20')
      .replace('checkpointInterval: 100', 'checkpointInterval: 10')
    await writeFile(join(dir, 'finetune.yaml'), job)
    const spec = await loadLocalJob(join(dir, 'finetune.yaml'))
    const weightsHash = spec.model.initialWeights?.data as Hex
    assert.equal(weightsHash, sha256Hex(new Uint8Array(await readFile(join(dir, 'model', 'model.safetensors')))))

    const start = initialCheckpoint(spec)
    const exported = (await evaluateCheckpoint({spec: base, checkpoint: await store.get(last.hash)})).testAccuracy
    assert.equal((await evaluateCheckpoint({spec, checkpoint: start})).testAccuracy, exported, 'step 0 is the trained model')
    const tuned = await trainJob({spec, store})
    const report = await verifyProof({spec, store, manifestHash: tuned.manifestHash, randomness: `0x${'12'.repeat(32)}`, segments: [0, 1]})
    assert.equal(report.accepted, true, report.reason)
    assert.ok((await evaluateCheckpoint({spec, checkpoint: await store.get(tuned.checkpoints.at(-1)!.hash)})).testAccuracy >= 0.9)
  })

  it('refuses weights that are not the model\'s, in one line', async () => {
    await writeFile(
      join(dir, 'wrong.yaml'),
      `name: wrong
model:
  inputShape: [4]
  initialWeights: {source: model/model.safetensors}
  layers: [{type: dense, units: 8, activation: relu}, {type: dense, units: 3}]
dataset: {source: ${join(process.cwd(), 'fixtures/data/iris.npz')}}
training: {steps: 10}
payment: {maxPrice: "0.00001"}
`,
    )
    await assert.rejects(loadLocalJob(join(dir, 'wrong.yaml')), (error: unknown) => {
      assert.ok(error instanceof DataInputError)
      assert.match(error.shortMessage, /^model\.initialWeights: expected the model's weights 0\/dense\/kernel \[4, 8\], .* got 0\/dense\/kernel \[4, 16\], /)
      return true
    })
  })
})
