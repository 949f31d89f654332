import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'

import {selectBackend} from '../backend/selectBackend.js'
import {parseJobSpec} from '../spec/parseJobSpec.js'
import {buildModel} from './buildModel.js'
import {forward} from './forward.js'
import {modelWeights} from './initialWeights.js'

describe('average pooling layers: forward against plain-JS means, and the tfjs layers export', () => {
  before(() => selectBackend('wasm'))

  it('avgPooling2d (2x2, stride 2) then globalAveragePooling: window means, then the mean of every position', () => {
    const spec = parseJobSpec(`name: pool
model: {inputShape: [28, 28, 1], layers: [{type: avgPooling2d}, {type: globalAveragePooling}, {type: dense, units: 10}]}
dataset: {name: mnist, trainLimit: 10, testLimit: 10}
training: {steps: 1}
payment: {maxPrice: "0.00001"}`)
    const pixels = Array.from({length: 784}, (_, i) => ((i * 37) % 101) / 100)
    // a dense layer that copies its one input to every output: the logits are the pooled value plus the bias
    const [kernel, bias] = modelWeights(spec.model).map((w) => tf.tensor(w.name.endsWith('kernel') ? new Array(10).fill(1) : Array.from({length: 10}, (_, j) => j), w.shape))
    const logits = forward(spec, [kernel!, bias!], tf.tensor(pixels, [1, 28, 28, 1]), {training: false}).dataSync()
    const windows: number[] = []
    for (let r = 0; r < 28; r += 2) for (let c = 0; c < 28; c += 2) windows.push((pixels[r * 28 + c]! + pixels[r * 28 + c + 1]! + pixels[(r + 1) * 28 + c]! + pixels[(r + 1) * 28 + c + 1]!) / 4)
    const mean = windows.reduce((a, b) => a + b, 0) / windows.length
    for (let j = 0; j < 10; j++) assert.ok(Math.abs(logits[j]! - (mean + j)) < 1e-5, `logit ${j}: ${logits[j]} against ${mean + j}`)
    // the tfjs layers model (averagePooling2d, globalAveragePooling2d) predicts the same
    const model = buildModel(spec)
    model.setWeights([kernel!, bias!])
    const predicted = (model.predict(tf.tensor(pixels, [1, 28, 28, 1])) as tf.Tensor).dataSync()
    for (let j = 0; j < 10; j++) assert.ok(Math.abs(predicted[j]! - logits[j]!) < 1e-5)
    model.dispose()
  })

  it('globalAveragePooling over a [sequence, features] input averages the positions', () => {
    const spec = parseJobSpec(`name: seq
model: {inputShape: [28, 28], layers: [{type: globalAveragePooling}, {type: dense, units: 10}]}
dataset: {name: mnist, trainLimit: 10, testLimit: 10}
training: {steps: 1}
payment: {maxPrice: "0.00001"}`)
    const x = Array.from({length: 784}, (_, i) => Math.sin(i))
    const kernel = tf.tensor(Array.from({length: 280}, (_, i) => (Math.floor(i / 10) % 10 === i % 10 ? 1 : 0)), [28, 10])
    const out = forward(spec, [kernel, tf.zeros([10])], tf.tensor(x, [1, 28, 28]), {training: false}).dataSync()
    const columnMean = (c: number) => Array.from({length: 28}, (_, r) => x[r * 28 + c]!).reduce((a, b) => a + b, 0) / 28
    for (let j = 0; j < 10; j++) {
      const expected = Array.from({length: 28}, (_, c) => (c % 10 === j ? columnMean(c) : 0)).reduce((a, b) => a + b, 0)
      assert.ok(Math.abs(out[j]! - expected) < 1e-5, `output ${j}`)
    }
  })
})
