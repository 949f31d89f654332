import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import * as tf from '@tensorflow/tfjs'
import type {Hex} from 'viem'

import {createLocalStore} from '../../store/createLocalStore.js'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {loadLocalJob} from '../data/loadLocalJob.js'
import {evaluateCheckpoint} from '../evaluate/evaluateCheckpoint.js'
import {forward} from '../model/forward.js'
import {trainJob} from '../train/trainJob.js'
import {exportWeights, type ModelCard} from './exportWeights.js'
import {decodeSafetensors, encodeSafetensors, SafetensorsError} from './safetensors.js'

describe('exportWeights: model.safetensors and model-card.json', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-weights-'))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  it('writes the safetensors layout byte for byte (known answer from the format spec)', () => {
    const bytes = encodeSafetensors([{name: 'a', shape: [2], values: Float32Array.of(1, 2)}])
    const json = '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' // 54 bytes, padded to 56
    const expected = Buffer.concat([Buffer.from([56, 0, 0, 0, 0, 0, 0, 0]), Buffer.from(`${json}  `), Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0x40])])
    assert.deepEqual(Buffer.from(bytes), expected)
    assert.throws(() => decodeSafetensors(bytes.subarray(0, 60)), SafetensorsError)
  })

  it('the exported weights rebuild the trained model: same predictions, and the card names its data, proof and metrics', async () => {
    const spec = await loadLocalJob('fixtures/jobs/iris-npz.yaml')
    const store = createLocalStore(join(dir, 'store'), {fsync: false})
    const trained = await trainJob({spec, store})
    const last = trained.checkpoints.at(-1)!
    const checkpoint = await store.get(last.hash)
    const outDir = join(dir, 'model')
    const {files} = await exportWeights({spec, checkpoint, checkpointHash: last.hash, proofRoot: trained.proofRoot, taskId: '9', outDir})
    assert.deepEqual(files, [join(outDir, 'model.safetensors'), join(outDir, 'model-card.json')])

    const {tensors, metadata} = decodeSafetensors(new Uint8Array(await readFile(files[0]!)))
    assert.equal(metadata['gensyn_proof_root'], trained.proofRoot)
    const params = tensors.map((t) => tf.tensor(t.values, t.shape, 'float32'))
    const original = decodeCheckpoint(checkpoint).weights.map((w) => tf.tensor(w.values, w.shape, 'float32'))
    const x = tf.randomNormal([8, 4], 0, 1, 'float32', 3)
    assert.deepEqual([...forward(spec, params, x, {training: false}).dataSync()], [...forward(spec, original, x, {training: false}).dataSync()])
    tf.dispose([...params, ...original, x])

    const card = JSON.parse(await readFile(files[1]!, 'utf8')) as ModelCard
    assert.equal(card.dataHash, 'source' in spec.dataset ? (spec.dataset.data as Hex) : undefined)
    assert.equal(card.proofRoot, trained.proofRoot)
    assert.equal(card.checkpoint, last.hash)
    assert.deepEqual(card.data?.classNames, ['setosa', 'versicolor', 'virginica'])
    const evaluation = await evaluateCheckpoint({spec, checkpoint})
    assert.deepEqual(card.metrics, {testAccuracy: evaluation.testAccuracy, testLoss: evaluation.testLoss, testSamples: 30})
    assert.deepEqual(card.tensors.map((t) => t.name), ['0/dense/kernel', '0/dense/bias', '1/dense/kernel', '1/dense/bias'])
  })
})
