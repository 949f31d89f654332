import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'

import {maxPoolGradConfig} from './maxPoolGrad.js'
import {host, liveCounts, runOn, sameBits, setUpBackends, type HostTensor} from './testHelpers.js'

type Pool = {x: number[]; size: number; stride: number; pad: 'same' | 'valid'}

const cases: Pool[] = [
  {x: [2, 6, 6, 3], size: 2, stride: 2, pad: 'valid'},
  {x: [2, 7, 7, 3], size: 2, stride: 2, pad: 'same'},
  {x: [1, 5, 6, 2], size: 3, stride: 1, pad: 'same'},
  {x: [3, 7, 5, 2], size: 3, stride: 2, pad: 'valid'},
  {x: [2, 6, 6, 4], size: 2, stride: 1, pad: 'valid'},
  {x: [1, 9, 9, 1], size: 3, stride: 2, pad: 'same'},
]

const name = (c: Pool): string => `x [${c.x.join(',')}] pool ${c.size} stride ${c.stride} ${c.pad}`

/** d/dx of sum(maxPool(x) * r): a non-uniform dy, through the real gradient path. */
function poolGrad(c: Pool) {
  return (x: tf.Tensor, r: tf.Tensor): tf.Tensor =>
    tf.grad((xx: tf.Tensor) => tf.maxPool(xx as tf.Tensor4D, c.size, c.stride, c.pad).mul(r).sum())(x)
}

function outShape(c: Pool): number[] {
  return tf.backend_util.computePool2DInfo(c.x as [number, number, number, number], c.size, c.stride, 1, c.pad).outShape
}

describe('wasm MaxPoolGrad fix', function () {
  let restore: () => Promise<void>
  before(async () => {
    restore = await setUpBackends()
  })
  after(async () => restore())

  it('is the kernel registered for wasm', () => {
    assert.equal(tf.getKernel('MaxPoolGrad', 'wasm'), maxPoolGradConfig)
  })

  it('routes an all-negative window to its argmax, exactly as cpu', async () => {
    // Two 2x2 windows, every value negative; the maxima are -3 (index 1) and -1 (index 6).
    const x: HostTensor = {values: Float32Array.from([-5, -3, -4, -6, -7, -8, -1, -2]), shape: [1, 2, 4, 1]}
    const ones: HostTensor = {values: Float32Array.from([1, 1]), shape: [1, 1, 2, 1]}
    const g = (xx: tf.Tensor, r: tf.Tensor) => poolGrad({x: [1, 2, 4, 1], size: 2, stride: 2, pad: 'valid'})(xx, r)
    const [cpu] = await runOn('cpu', [x, ones], g)
    const [wasm] = await runOn('wasm', [x, ones], g)
    assert.deepEqual(Array.from(wasm!), [0, 1, 0, 0, 0, 0, 1, 0])
    assert.ok(sameBits(wasm!, cpu!))
  })

  // The stock kernel's own mistake on that window is checked in a fresh process: index.test.ts.

  it('all-zero windows (after relu) and ties pick the first maximum, as cpu', async () => {
    const values = new Float32Array(2 * 4 * 4 * 2)
    for (let i = 0; i < values.length; i++) values[i] = i % 5 === 0 ? 0.5 : i % 3 === 0 ? -1 : 0
    const x: HostTensor = {values, shape: [2, 4, 4, 2]}
    for (const c of [{x: x.shape, size: 2, stride: 2, pad: 'valid'}, {x: x.shape, size: 3, stride: 1, pad: 'same'}] as Pool[]) {
      const r = host(3, outShape(c), 0.5, 1.5)
      const [cpu] = await runOn('cpu', [x, r], poolGrad(c))
      const [wasm] = await runOn('wasm', [x, r], poolGrad(c))
      assert.ok(sameBits(wasm!, cpu!), name(c))
    }
  })

  for (const [i, c] of cases.entries()) {
    it(`matches cpu bit for bit through tf.grad: ${name(c)}`, async () => {
      const x = host(100 + i, c.x)
      const r = host(200 + i, outShape(c))
      const [cpu] = await runOn('cpu', [x, r], poolGrad(c))
      const [wasm] = await runOn('wasm', [x, r], poolGrad(c))
      assert.ok(sameBits(wasm!, cpu!))
      assert.ok(cpu!.some((v) => v !== 0))
    })
  }

  it('matches cpu through a direct runKernel call, with negative inputs', async () => {
    const c: Pool = {x: [2, 8, 8, 3], size: 3, stride: 2, pad: 'same'}
    const x = host(7, c.x, -3, -1)
    const dy = host(8, outShape(c))
    const run = (xx: tf.Tensor, g: tf.Tensor) => {
      const y = tf.maxPool(xx as tf.Tensor4D, c.size, c.stride, c.pad)
      return tf.engine().runKernel('MaxPoolGrad', {dy: g, input: xx, output: y}, {filterSize: c.size, strides: c.stride, pad: c.pad}) as tf.Tensor
    }
    const [cpu] = await runOn('cpu', [x, dy], run)
    const [wasm] = await runOn('wasm', [x, dy], run)
    assert.ok(sameBits(wasm!, cpu!))
    // Every window routes its whole gradient somewhere: nothing is lost.
    const sum = (a: Float32Array) => a.reduce((s, v) => s + v, 0)
    assert.ok(Math.abs(sum(wasm!) - sum(dy.values)) < 1e-4)
  })

  it('is deterministic and leaks nothing', async () => {
    const c = cases[3]!
    const x = host(11, c.x)
    const r = host(12, outShape(c))
    await tf.setBackend('wasm')
    const [first] = await runOn('wasm', [x, r], poolGrad(c))
    const before = liveCounts()
    const [second] = await runOn('wasm', [x, r], poolGrad(c))
    assert.deepEqual(liveCounts(), before)
    assert.ok(sameBits(first!, second!))
  })
})
