import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'
import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'

import {swapLastTwo, wrappedKernel} from './batchMatMulTransposed.js'
import {stockWasmKernel} from './index.js'
import {host, liveCounts, relDiff, runOn, sameBits, setUpBackends} from './testHelpers.js'

type MatMul = {a: number[]; b: number[]}

/** Shapes of a and b for the product [..., m, k] x [..., k, n] under the given transposes. */
function shapes(batchA: number[], batchB: number[], m: number, k: number, n: number, ta: boolean, tb: boolean): MatMul {
  return {a: [...batchA, ...(ta ? [k, m] : [m, k])], b: [...batchB, ...(tb ? [n, k] : [k, n])]}
}

const combos: [boolean, boolean][] = [[false, false], [true, false], [false, true], [true, true]]
const TOL = 1e-4

function matMul(ta: boolean, tb: boolean) {
  return (a: tf.Tensor, b: tf.Tensor): tf.Tensor => tf.matMul(a, b, ta, tb)
}

describe('wasm BatchMatMul fix (transposed inputs)', function () {
  let restore: () => Promise<void>
  before(async () => {
    restore = await setUpBackends()
  })
  after(async () => restore())

  it('wraps the stock kernel, which it keeps for the non-transposed case', () => {
    const current = tf.getKernel('BatchMatMul', 'wasm')!
    const stock = stockWasmKernel('BatchMatMul')
    assert.ok(stock)
    assert.equal(wrappedKernel(current), stock)
    assert.equal(wrappedKernel(stock), undefined)
    assert.deepEqual(swapLastTwo(2), [1, 0])
    assert.deepEqual(swapLastTwo(4), [0, 1, 3, 2])
  })

  const groups: [string, number[], number[], number, number, number][] = [
    ['2-D', [], [], 17, 33, 9],
    ['batch 1, rank 3', [1], [1], 8, 40, 12],
    ['batch 3', [3], [3], 5, 7, 6],
    ['batch [2, 2]', [2, 2], [2, 2], 4, 9, 3],
    ['batch 3 times a broadcast matrix', [3], [], 6, 5, 4],
    ['dense-gradient sizes', [], [], 32, 100, 64],
  ]
  for (const [label, batchA, batchB, m, k, n] of groups) {
    for (const [ta, tb] of combos) {
      it(`matches cpu: ${label}, transposeA=${ta} transposeB=${tb}`, async () => {
        const s = shapes(batchA, batchB, m, k, n, ta, tb)
        const inputs = [host(m * 7 + k, s.a), host(n * 13 + k, s.b)]
        const [cpu] = await runOn('cpu', inputs, matMul(ta, tb))
        const [wasm] = await runOn('wasm', inputs, matMul(ta, tb))
        assert.ok(relDiff(wasm!, cpu!) <= TOL, `rel diff ${relDiff(wasm!, cpu!)}`)
      })
    }
  }

  it('matches cpu through direct runKernel calls', async () => {
    const s = shapes([], [], 20, 30, 10, true, true)
    const run = (a: tf.Tensor, b: tf.Tensor) => tf.engine().runKernel('BatchMatMul', {a, b}, {transposeA: true, transposeB: true}) as tf.Tensor
    const inputs = [host(5, s.a), host(6, s.b)]
    const [cpu] = await runOn('cpu', inputs, run)
    const [wasm] = await runOn('wasm', inputs, run)
    assert.ok(relDiff(wasm!, cpu!) <= TOL)
  })

  it('gives the same bits on repeated calls, and leaks nothing', async () => {
    for (const [ta, tb] of combos) {
      const s = shapes([], [], 64, 96, 48, ta, tb)
      const inputs = [host(1, s.a), host(2, s.b)]
      const [first] = await runOn('wasm', inputs, matMul(ta, tb))
      const before = liveCounts()
      const [second] = await runOn('wasm', inputs, matMul(ta, tb))
      assert.deepEqual(liveCounts(), before)
      assert.ok(sameBits(first!, second!), `transposeA=${ta} transposeB=${tb}`)
    }
  })

  it('computes a transposed product as transpose-then-plain-matmul, bit for bit (the XNNPACK route)', async () => {
    await tf.setBackend('wasm')
    // k = 130 > 48: the stock kernel's scalar loop sums k in blocks of 48, so its bits differ from XNNPACK's.
    const a = host(3, [130, 32])
    const b = host(4, [40, 130])
    const stock = stockWasmKernel('BatchMatMul')!
    const [fixed, viaTranspose, viaStock] = await runOn('wasm', [a, b], (ta, tb) => {
      const backend = tf.backend() as BackendWasm
      const info = stock.kernelFunc({inputs: {a: ta, b: tb}, backend, attrs: {transposeA: true, transposeB: true}}) as tf.TensorInfo
      const stockOut = tf.engine().makeTensorFromTensorInfo(info)
      return [tf.matMul(ta, tb, true, true), tf.matMul(ta.transpose(), tb.transpose()), stockOut]
    })
    assert.ok(sameBits(fixed!, viaTranspose!))
    assert.ok(!sameBits(fixed!, viaStock!), 'the stock kernel took the same route')
    assert.ok(relDiff(fixed!, viaStock!) <= TOL)
  })
})
