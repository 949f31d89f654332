import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'

import {conv2dBackpropFilterConfig} from './conv2dBackpropFilter.js'
import {WasmKernelError} from './index.js'
import {host, liveCounts, relDiff, runOn, sameBits, setUpBackends} from './testHelpers.js'

type Conv = {x: number[]; filter: number[]; stride: number | [number, number]; pad: 'same' | 'valid'}

const cases: Conv[] = [
  {x: [2, 6, 6, 1], filter: [3, 3, 1, 4], stride: 1, pad: 'valid'},
  {x: [2, 6, 6, 3], filter: [3, 3, 3, 5], stride: 1, pad: 'same'},
  {x: [3, 7, 7, 2], filter: [3, 3, 2, 4], stride: 2, pad: 'same'},
  {x: [2, 8, 7, 3], filter: [2, 3, 3, 2], stride: 2, pad: 'valid'},
  {x: [1, 9, 8, 4], filter: [5, 4, 4, 3], stride: [2, 1], pad: 'same'},
  {x: [4, 5, 5, 2], filter: [1, 1, 2, 6], stride: 1, pad: 'valid'},
]

const TOL = 1e-4
const name = (c: Conv): string => `x [${c.x.join(',')}] filter [${c.filter.join(',')}] stride ${c.stride} ${c.pad}`

function outShape(c: Conv): number[] {
  const x = c.x as [number, number, number, number]
  const filter = c.filter as [number, number, number, number]
  return tf.backend_util.computeConv2DInfo(x, filter, c.stride, 1, c.pad).outShape
}

/** [dx, dW] of sum(conv2d(x, w) * r) through tf.grads: Conv2DBackpropInput and Conv2DBackpropFilter. */
function convGrads(c: Conv) {
  return (x: tf.Tensor, w: tf.Tensor, r: tf.Tensor): tf.Tensor[] =>
    tf.grads((xx: tf.Tensor, ww: tf.Tensor) => tf.conv2d(xx as tf.Tensor4D, ww as tf.Tensor4D, c.stride, c.pad).mul(r).sum())([x, w])
}

describe('wasm Conv2DBackpropFilter fix (and the stock Conv2DBackpropInput)', function () {
  let restore: () => Promise<void>
  before(async () => {
    restore = await setUpBackends()
  })
  after(async () => restore())

  it('is the kernel registered for wasm, next to a stock Conv2DBackpropInput', () => {
    assert.equal(tf.getKernel('Conv2DBackpropFilter', 'wasm'), conv2dBackpropFilterConfig)
    assert.ok(tf.getKernel('Conv2DBackpropInput', 'wasm'))
  })

  for (const [i, c] of cases.entries()) {
    it(`dx and dW match cpu through tf.grads: ${name(c)}`, async () => {
      const inputs = [host(10 + i, c.x), host(20 + i, c.filter), host(30 + i, outShape(c))]
      const [cpuDx, cpuDw] = await runOn('cpu', inputs, convGrads(c))
      const [wasmDx, wasmDw] = await runOn('wasm', inputs, convGrads(c))
      assert.ok(relDiff(wasmDw!, cpuDw!) <= TOL, `dW rel diff ${relDiff(wasmDw!, cpuDw!)}`)
      assert.ok(relDiff(wasmDx!, cpuDx!) <= TOL, `dx rel diff ${relDiff(wasmDx!, cpuDx!)}`)
      assert.ok(cpuDw!.some((v) => v !== 0))
    })
  }

  it('matches cpu through direct runKernel calls, both kernels', async () => {
    const c: Conv = {x: [2, 9, 9, 3], filter: [3, 3, 3, 4], stride: 2, pad: 'same'}
    const dyShape = outShape(c)
    const attrs = {strides: c.stride, pad: c.pad, dataFormat: 'NHWC'}
    const run = (x: tf.Tensor, w: tf.Tensor, dy: tf.Tensor): tf.Tensor[] => [
      tf.engine().runKernel('Conv2DBackpropFilter', {x, dy}, {...attrs, filterShape: c.filter}) as tf.Tensor,
      tf.engine().runKernel('Conv2DBackpropInput', {dy, filter: w}, {...attrs, inputShape: c.x}) as tf.Tensor,
    ]
    const inputs = [host(1, c.x), host(2, c.filter), host(3, dyShape)]
    const [cpuDw, cpuDx] = await runOn('cpu', inputs, run)
    const [wasmDw, wasmDx] = await runOn('wasm', inputs, run)
    assert.ok(relDiff(wasmDw!, cpuDw!) <= TOL)
    assert.ok(relDiff(wasmDx!, cpuDx!) <= TOL)
  })

  it('matches cpu on an MNIST-sized batch (32 x 28x28x1 -> 16 filters 3x3)', async () => {
    const c: Conv = {x: [32, 28, 28, 1], filter: [3, 3, 1, 16], stride: 1, pad: 'valid'}
    const inputs = [host(41, c.x, 0, 1), host(42, c.filter), host(43, outShape(c), -1e-2, 1e-2)]
    const [cpuDx, cpuDw] = await runOn('cpu', inputs, convGrads(c))
    const [wasmDx, wasmDw] = await runOn('wasm', inputs, convGrads(c))
    assert.ok(relDiff(wasmDw!, cpuDw!) <= TOL, `dW rel diff ${relDiff(wasmDw!, cpuDw!)}`)
    assert.ok(relDiff(wasmDx!, cpuDx!) <= TOL)
  })

  it('is deterministic and leaks nothing', async () => {
    const c = cases[2]!
    const inputs = [host(51, c.x), host(52, c.filter), host(53, outShape(c))]
    const [dx1, dw1] = await runOn('wasm', inputs, convGrads(c))
    const before = liveCounts()
    const [dx2, dw2] = await runOn('wasm', inputs, convGrads(c))
    assert.deepEqual(liveCounts(), before)
    assert.ok(sameBits(dw1!, dw2!))
    assert.ok(sameBits(dx1!, dx2!))
  })

  it('rejects NCHW with a WasmKernelError', async () => {
    await tf.setBackend('wasm')
    tf.tidy(() => {
      const x = tf.zeros([1, 2, 5, 5])
      const dy = tf.zeros([1, 3, 3, 3])
      assert.throws(
        () => tf.engine().runKernel('Conv2DBackpropFilter', {x, dy}, {strides: 1, pad: 'valid', dataFormat: 'NCHW', filterShape: [3, 3, 2, 3]}),
        (e: unknown) => e instanceof WasmKernelError && /NHWC/.test(e.message),
      )
    })
  })
})
