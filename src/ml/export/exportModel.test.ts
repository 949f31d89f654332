import assert from 'node:assert/strict'
import * as tf from '@tensorflow/tfjs'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {decodeCheckpoint} from '../checkpoint/decodeCheckpoint.js'
import {CheckpointMismatchError} from '../train/errors.js'
import {createLocalStore} from '../../store/createLocalStore.js'
import {forward, outputsFromLogits} from '../model/forward.js'
import {tinyCnnLayers, tinySpec} from '../train/testSpecs.js'
import {trainJob} from '../train/trainJob.js'
import {loadExportedModel} from '../../../test/helpers/loadExportedModel.js'
import {exportModel} from './exportModel.js'

describe('exportModel', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-export-'))
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  for (const [kind, spec] of [
    ['mlp', tinySpec({steps: 20, interval: 20})],
    ['cnn', tinySpec({inputShape: '[28, 28, 1]', layers: tinyCnnLayers, steps: 10, interval: 10})],
  ] as const) {
    it(`writes a ${kind} that tf.loadLayersModel loads and that predicts like the checkpoint`, async () => {
      const store = createLocalStore(join(dir, 'store'), {fsync: false})
      const result = await trainJob({spec, store})
      const bytes = await store.get(result.checkpoints.at(-1)?.hash ?? '0x')
      const outDir = join(dir, kind)
      const {files} = await exportModel({spec, checkpoint: bytes, outDir})
      assert.deepEqual(files, [join(outDir, 'model.json'), join(outDir, 'weights.bin')])
      const json = JSON.parse(await readFile(files[0] as string, 'utf8')) as {format: string; weightsManifest: {paths: string[]}[]}
      assert.equal(json.format, 'layers-model')
      assert.deepEqual(json.weightsManifest[0]?.paths, ['weights.bin'])

      const model = await loadExportedModel(outDir)
      const cp = decodeCheckpoint(bytes)
      const params = cp.weights.map((w) => tf.tensor(w.values, w.shape))
      const x = tf.randomUniform([4, ...spec.model.inputShape], 0, 1, 'float32', 42)
      const loaded = (model.predict(x) as tf.Tensor).dataSync()
      const expected = outputsFromLogits(spec, forward(spec, params, x, {training: false})).dataSync()
      assert.equal(loaded.length, 40)
      for (let i = 0; i < 40; i++) assert.ok(Math.abs((loaded[i] as number) - (expected[i] as number)) < 1e-6, `output ${i}`)
      // the exported weights are the checkpoint's, bit for bit
      const exported = model.getWeights().map((w) => w.dataSync())
      for (const [i, w] of cp.weights.entries()) assert.deepEqual(new Uint8Array((exported[i] as Float32Array).buffer.slice(0)), new Uint8Array(w.values.buffer.slice(0)))
      model.dispose()
      tf.dispose([...params, x])
      // deterministic files
      const again = await exportModel({spec, checkpoint: bytes, outDir: join(dir, `${kind}-again`)})
      for (const [i, f] of files.entries()) assert.deepEqual(await readFile(again.files[i] as string), await readFile(f))
    })
  }

  it('refuses a checkpoint of another model', async () => {
    const store = createLocalStore(join(dir, 'store'), {fsync: false})
    const result = await trainJob({spec: tinySpec({steps: 1, interval: 1}), store})
    const bytes = await store.get(result.checkpoints[0]?.hash ?? '0x')
    const other = tinySpec({layers: '[{type: dense, units: 10, activation: softmax}]'})
    await assert.rejects(exportModel({spec: other, checkpoint: bytes, outDir: join(dir, 'x')}), CheckpointMismatchError)
  })
})
