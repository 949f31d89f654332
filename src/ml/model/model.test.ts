import assert from 'node:assert/strict'
import * as tf from '@tensorflow/tfjs'
import {selectBackend} from '../backend/selectBackend.js'
import {parseJobSpec} from '../spec/parseJobSpec.js'
import {analyzeModel} from './analyzeModel.js'
import {buildModel} from './buildModel.js'
import {forward, outputsFromLogits} from './forward.js'
import {initialWeights} from './initialWeights.js'

const mlp = parseJobSpec(`name: t
model: {inputShape: [784], layers: [{type: dense, units: 32, activation: relu}, {type: dropout, rate: 0.5}, {type: dense, units: 10, activation: softmax}]}
dataset: {name: mnist}
training: {steps: 1, seed: 7}
payment: {maxPrice: "0.00001"}`)

const cnn = parseJobSpec(`name: t
model:
  inputShape: [28, 28, 1]
  layers:
    - {type: conv2d, filters: 4, kernelSize: 3, strides: 2, padding: same, activation: tanh}
    - {type: maxPooling2d, poolSize: 2}
    - {type: conv2d, filters: 3, kernelSize: [2, 3], activation: relu}
    - {type: flatten}
    - {type: dense, units: 10, activation: softmax}
dataset: {name: mnist}
training: {steps: 1, seed: 3}
payment: {maxPrice: "0.00001"}`)

describe('model', () => {
  it('infers shapes and weights like Keras', () => {
    const a = analyzeModel(cnn.model)
    assert.ok(a.ok)
    assert.deepEqual(a.layers.map((l) => l.outputShape), [[14, 14, 4], [7, 7, 4], [6, 5, 3], [90], [10]])
    assert.deepEqual(a.weights.map((w) => `${w.name} ${w.shape.join('x')}`), [
      '0/conv2d/kernel 3x3x1x4',
      '0/conv2d/bias 4',
      '2/conv2d/kernel 2x3x4x3',
      '2/conv2d/bias 3',
      '4/dense/kernel 90x10',
      '4/dense/bias 10',
    ])
    assert.equal(a.parameterCount, 36 + 4 + 72 + 3 + 900 + 10)
  })

  it('initialises weights from the seeded PRNG: glorot-uniform kernels, zero biases (known answer)', () => {
    const [kernel, bias] = initialWeights(mlp)
    assert.ok(kernel && bias)
    assert.equal(kernel.length, 784 * 32)
    // independent Python: sha256 stream "gensyn/init/v1 seed=7 weight=0/dense/kernel", (2u-1)*sqrt(6/(784+32))
    const bits = [...new Uint32Array(kernel.buffer, 0, 4)].map((b) => `0x${b.toString(16)}`)
    assert.deepEqual(bits, ['0x3b7876c4', '0xbdac9cdd', '0xbd62784f', '0xbcb31daf'])
    const limit = Math.sqrt(6 / (784 + 32))
    assert.ok(kernel.every((v) => Math.abs(v) <= limit))
    assert.ok(bias.every((v) => v === 0))
    assert.deepEqual(initialWeights(mlp), initialWeights(mlp))
    const reseeded = initialWeights({...mlp, training: {...mlp.training, seed: 8}})
    assert.notDeepEqual(reseeded[0], kernel)
  })

  it('builds a tfjs model whose predictions match the explicit forward pass', async () => {
    await selectBackend('wasm')
    for (const spec of [mlp, cnn]) {
      const model = buildModel(spec)
      const weights = initialWeights(spec)
      const shapes = model.getWeights().map((w) => w.shape)
      const tensors = weights.map((w, i) => tf.tensor(w, shapes[i]))
      model.setWeights(tensors)
      const x = tf.randomUniform([5, ...spec.model.inputShape], 0, 1, 'float32', 1)
      const viaLayers = (model.predict(x) as tf.Tensor).dataSync()
      const viaOps = outputsFromLogits(spec, forward(spec, tensors, x, {training: false})).dataSync()
      assert.equal(viaLayers.length, 50)
      for (let i = 0; i < 50; i++) assert.ok(Math.abs((viaLayers[i] as number) - (viaOps[i] as number)) < 1e-6, `output ${i}`)
      model.dispose()
      tf.dispose([...tensors, x])
    }
  })

  it('applies a seeded dropout mask that changes per step and is off at inference', async () => {
    await selectBackend('wasm')
    const params = initialWeights(mlp).map((w, i) => tf.tensor(w, i === 0 ? [784, 32] : i === 1 ? [32] : i === 2 ? [32, 10] : [10]))
    params[1]?.dispose()
    params[1] = tf.fill([32], 0.5) // positive hidden activations so dropped units show
    const x = tf.ones([2, 784])
    const run = (mode: Parameters<typeof forward>[3]) => forward(mlp, params, x, mode).arraySync() as number[][]
    assert.deepEqual(run({training: true, seed: 7, step: 3}), run({training: true, seed: 7, step: 3}))
    assert.notDeepEqual(run({training: true, seed: 7, step: 3}), run({training: true, seed: 7, step: 4}))
    assert.notDeepEqual(run({training: true, seed: 7, step: 3}), run({training: false}))
    assert.deepEqual(run({training: false}), run({training: false}))
    tf.dispose([...params, x])
  })
})
