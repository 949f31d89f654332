import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'

import {selectBackend} from '../backend/selectBackend.js'
import {parseJobSpec} from '../spec/parseJobSpec.js'
import {forward} from './forward.js'
import {modelWeights} from './initialWeights.js'

// Plain-JS references, row-major: a matrix is number[][] ([rows][columns]).
type Matrix = number[][]
const matmul = (a: Matrix, b: Matrix): Matrix => a.map((row) => b[0]!.map((_, j) => row.reduce((sum, x, k) => sum + x * b[k]![j]!, 0)))
const addRow = (a: Matrix, row: number[]): Matrix => a.map((r) => r.map((x, j) => x + row[j]!))
const softmax = (row: number[]) => {
  const top = Math.max(...row)
  const e = row.map((x) => Math.exp(x - top))
  const total = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / total)
}
// erf by Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7)
const erf = (x: number) => {
  const t = 1 / (1 + 0.3275911 * Math.abs(x))
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x)
  return Math.sign(x) * y
}
const gelu = (x: number) => 0.5 * x * (1 + erf(x / Math.SQRT2))
const layerNorm = (a: Matrix, gamma: number[], beta: number[], eps: number): Matrix =>
  a.map((row) => {
    const mean = row.reduce((s, x) => s + x, 0) / row.length
    const variance = row.reduce((s, x) => s + (x - mean) ** 2, 0) / row.length
    return row.map((x, j) => ((x - mean) / Math.sqrt(variance + eps)) * gamma[j]! + beta[j]!)
  })
function attention(x: Matrix, w: Matrix[], b: number[][], heads: number, causal: boolean): Matrix {
  const [q, k, v] = [0, 1, 2].map((i) => addRow(matmul(x, w[i]!), b[i]!))
  const width = x[0]!.length
  const size = width / heads
  const out: Matrix = x.map(() => new Array<number>(width).fill(0))
  for (let h = 0; h < heads; h++) {
    const cols = (m: Matrix) => m.map((row) => row.slice(h * size, (h + 1) * size))
    const [qh, kh, vh] = [cols(q!), cols(k!), cols(v!)]
    for (let i = 0; i < x.length; i++) {
      const scores = kh.map((kr, j) => (causal && j > i ? -1e9 : qh[i]!.reduce((s, qv, d) => s + qv * kr[d]!, 0) / Math.sqrt(size)))
      const p = softmax(scores)
      for (let d = 0; d < size; d++) out[i]![h * size + d] = p.reduce((s, pj, j) => s + pj * vh[j]![d]!, 0)
    }
  }
  return addRow(matmul(out, w[3]!), b[3]!)
}

describe('sequence layers: forward against plain-JS references', () => {
  before(() => selectBackend('wasm'))

  it('embedding, positional embedding, a pre-norm attention block and a gelu MLP block match the reference to 1e-4', () => {
    const spec = parseJobSpec(`name: ref
model:
  inputShape: [5]
  layers:
    - {type: embedding, vocabulary: 7, units: 8}
    - {type: positionalEmbedding}
    - {type: residual, layers: [{type: layerNormalization}, {type: multiHeadAttention, heads: 2}]}
    - {type: residual, layers: [{type: layerNormalization, epsilon: 0.001}, {type: dense, units: 12, activation: gelu}, {type: dense, units: 8}]}
    - {type: dense, units: 7}
dataset: {source: x.txt, task: language-model, context: 5}
training: {steps: 1}
payment: {maxPrice: "0.00001"}`)
    const infos = modelWeights(spec.model)
    let seed = 1
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.8
    const values = infos.map((w) => Array.from({length: w.shape.reduce((a, b) => a * b, 1)}, random))
    const ids = [3, 0, 6, 2, 2]
    const logits = forward(spec, values.map((v, i) => tf.tensor(v, infos[i]!.shape)), tf.tensor([ids], [1, 5]), {training: false}).arraySync() as number[][][]

    const matrix = (i: number): Matrix => {
      const [rows, cols] = infos[i]!.shape as [number, number]
      return Array.from({length: rows}, (_, r) => values[i]!.slice(r * cols, (r + 1) * cols))
    }
    let h: Matrix = ids.map((id) => matrix(0)[id]!)
    h = h.map((row, t) => row.map((x, j) => x + matrix(1)[t]![j]!))
    const normed = layerNorm(h, values[2]!, values[3]!, 1e-5)
    const attended = attention(normed, [4, 6, 8, 10].map(matrix), [5, 7, 9, 11].map((i) => values[i]!), 2, true)
    h = h.map((row, t) => row.map((x, j) => x + attended[t]![j]!))
    const mlp = addRow(matmul(addRow(matmul(layerNorm(h, values[12]!, values[13]!, 0.001), matrix(14)), values[15]!).map((row) => row.map(gelu)), matrix(16)), values[17]!)
    h = h.map((row, t) => row.map((x, j) => x + mlp[t]![j]!))
    const expected = addRow(matmul(h, matrix(18)), values[19]!)
    assert.equal(infos.length, 20)
    for (let t = 0; t < 5; t++) for (let j = 0; j < 7; j++) assert.ok(Math.abs(logits[0]![t]![j]! - expected[t]![j]!) < 1e-4, `logit [${t}, ${j}]: ${logits[0]![t]![j]} against ${expected[t]![j]}`)
  })

  it('causal attention: a later token does not change an earlier position\'s output', () => {
    const spec = parseJobSpec(`name: causal
model: {inputShape: [4], layers: [{type: embedding, vocabulary: 5, units: 4}, {type: multiHeadAttention, heads: 1}, {type: dense, units: 5}]}
dataset: {source: x.txt, task: language-model, context: 4}
training: {steps: 1}
payment: {maxPrice: "0.00001"}`)
    const params = modelWeights(spec.model).map((w, i) => tf.randomNormal(w.shape, 0, 0.5, 'float32', i))
    const run = (ids: number[]) => forward(spec, params, tf.tensor([ids], [1, 4]), {training: false}).arraySync() as number[][][]
    const [a, b] = [run([1, 2, 3, 4]), run([1, 2, 3, 0])]
    assert.deepEqual(a[0]!.slice(0, 3), b[0]!.slice(0, 3))
    assert.notDeepEqual(a[0]![3], b[0]![3])
  })
})
