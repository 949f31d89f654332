import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

import * as tf from '@tensorflow/tfjs'

import {registerWasmKernelFixes, WASM_FIXED_KERNELS, WASM_KERNEL_FIXES_ID} from './index.js'
import {liveCounts, relDiff, sameBits, seeded, setUpBackends} from './testHelpers.js'

const run = promisify(execFile)

/** A tiny CNN: conv2d (linear, so pooling windows can be all negative) -> maxPooling2d -> flatten -> dense softmax. */
function buildCnn(): tf.Sequential {
  const model = tf.sequential()
  model.add(tf.layers.conv2d({inputShape: [10, 10, 1], filters: 4, kernelSize: 3, padding: 'same'}))
  model.add(tf.layers.maxPooling2d({poolSize: 2, strides: 2}))
  model.add(tf.layers.conv2d({filters: 3, kernelSize: 2, strides: 2, padding: 'valid', activation: 'relu'}))
  model.add(tf.layers.flatten())
  model.add(tf.layers.dense({units: 3, activation: 'softmax'}))
  return model
}

type TrainResult = {losses: number[]; weights: Float32Array[]}

/** 3 sgd steps from seeded weights on a seeded batch; returns per-step losses and final weights. Leaves nothing behind. */
async function trainCnn(backend: 'cpu' | 'wasm'): Promise<TrainResult> {
  await tf.setBackend(backend)
  const model = buildCnn()
  const optimizer = tf.train.sgd(0.5)
  model.compile({optimizer, loss: 'categoricalCrossentropy'})
  tf.tidy(() => {
    model.setWeights(model.getWeights().map((w, i) => tf.tensor(seeded(1000 + i, w.size, -0.5, 0.5), w.shape)))
  })
  const batch = 8
  const x = tf.tensor(seeded(7, batch * 10 * 10, 0, 1), [batch, 10, 10, 1])
  const labels = Array.from({length: batch}, (_, i) => (i * 5) % 3)
  const y = tf.tidy(() => tf.oneHot(tf.tensor1d(labels, 'int32'), 3).toFloat())
  const losses: number[] = []
  for (let step = 0; step < 3; step++) losses.push((await model.trainOnBatch(x, y)) as number)
  const weights = model.getWeights().map((w) => Float32Array.from(w.dataSync() as Float32Array))
  x.dispose()
  y.dispose()
  model.dispose()
  optimizer.dispose()
  return {losses, weights}
}

describe('registerWasmKernelFixes', function () {
  let restore: () => Promise<void>
  before(async () => {
    restore = await setUpBackends()
  })
  after(async () => restore())

  it('returns the fix-set id and is idempotent', () => {
    const before = WASM_FIXED_KERNELS.map((k) => tf.getKernel(k, 'wasm'))
    assert.equal(registerWasmKernelFixes(), WASM_KERNEL_FIXES_ID)
    assert.equal(registerWasmKernelFixes(), 'gensyn-wasm-fixes/1')
    const after = WASM_FIXED_KERNELS.map((k) => tf.getKernel(k, 'wasm'))
    for (const [i, k] of WASM_FIXED_KERNELS.entries()) assert.equal(after[i], before[i], k)
  })

  it('keeps the stock kernels it replaced, and the stock MaxPoolGrad is the one that is wrong (a fresh process)', async function () {
    // tfjs's kernel registry is process-wide and mocha's workers run many files, so what "stock" means is
    // checked in a process where nothing else registered a kernel first.
    this.timeout(60_000)
    const indexUrl = new URL('./index.ts', import.meta.url).href
    const wrapperUrl = new URL('./batchMatMulTransposed.ts', import.meta.url).href
    const script = `
      import * as tf from '@tensorflow/tfjs'
      const {registerWasmKernelFixes, stockWasmKernel} = await import(${JSON.stringify(indexUrl)})
      const {wrappedKernel} = await import(${JSON.stringify(wrapperUrl)})
      registerWasmKernelFixes()
      await tf.setBackend('wasm')
      const backend = tf.backend()
      const stock = stockWasmKernel('MaxPoolGrad')
      // An all-negative pooling window, through the stock kernel (its setup may not have run: it was replaced first).
      stock.setupFunc?.(backend)
      const x = tf.tensor4d([-5, -3, -4, -6, -7, -8, -1, -2], [1, 2, 4, 1])
      const dy = tf.ones([1, 1, 2, 1])
      const info = stock.kernelFunc({inputs: {dy, input: x, output: dy}, backend, attrs: {filterSize: 2, strides: 2, pad: 'valid'}})
      console.log('RESULT ' + JSON.stringify({
        conv: stockWasmKernel('Conv2DBackpropFilter') === undefined,
        bmmWrapsStock: wrappedKernel(tf.getKernel('BatchMatMul', 'wasm')) === stockWasmKernel('BatchMatMul'),
        stockPool: Array.from(backend.readSync(info.dataId)),
      }))
    `
    const {stdout} = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {cwd: process.cwd()})
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '))
    assert.ok(line, `no result from the child: ${stdout}`)
    const result = JSON.parse(line.slice('RESULT '.length)) as {conv: boolean; bmmWrapsStock: boolean; stockPool: number[]}
    assert.equal(result.conv, true, 'tfjs 4.22 wasm has no Conv2DBackpropFilter')
    // The BatchMatMul fix wraps the stock kernel, never a fix (no double wrapping).
    assert.equal(result.bmmWrapsStock, true)
    // The gap the MaxPoolGrad fix closes: cpu (and the fix) give [0, 1, 0, 0, 0, 0, 1, 0] here.
    assert.notDeepEqual(result.stockPool, [0, 1, 0, 0, 0, 0, 1, 0])
  })

  it('trains a tiny CNN 3 sgd steps on wasm like cpu, and bit-identically twice on wasm', async () => {
    const cpu = await trainCnn('cpu')
    const wasm1 = await trainCnn('wasm')
    const counts = liveCounts()
    const wasm2 = await trainCnn('wasm')
    assert.deepEqual(liveCounts(), counts, 'tensors leaked by a training run')

    assert.equal(wasm1.losses.length, 3)
    assert.ok(wasm1.losses[2]! < wasm1.losses[0]!, `loss did not fall: ${wasm1.losses.join(', ')}`)
    for (const [i, loss] of wasm1.losses.entries()) {
      assert.ok(Math.abs(loss - cpu.losses[i]!) <= 1e-4 * Math.abs(cpu.losses[i]!), `step ${i}: wasm ${loss} cpu ${cpu.losses[i]}`)
    }
    for (const [i, w] of wasm1.weights.entries()) {
      assert.ok(relDiff(w, cpu.weights[i]!) <= 1e-4, `weight ${i} rel diff ${relDiff(w, cpu.weights[i]!)}`)
      assert.ok(sameBits(w, wasm2.weights[i]!), `weight ${i} differs between two wasm runs`)
    }
    assert.deepEqual(wasm2.losses, wasm1.losses)
    // Training moved the conv filters: their gradient (Conv2DBackpropFilter) was not zero.
    assert.ok(relDiff(wasm1.weights[0]!, seeded(1000, wasm1.weights[0]!.length, -0.5, 0.5)) > 1e-3)
  })

  it('works registered before or after the wasm backend initialises (fresh processes)', async function () {
    this.timeout(60_000)
    const indexUrl = new URL('./index.ts', import.meta.url).href
    const script = (registerFirst: boolean) => `
      import * as tf from '@tensorflow/tfjs'
      const {registerWasmKernelFixes} = await import(${JSON.stringify(indexUrl)})
      ${registerFirst ? 'registerWasmKernelFixes()' : ''}
      await tf.setBackend('wasm')
      ${registerFirst ? '' : 'registerWasmKernelFixes()'}
      const x = tf.tensor4d([-5, -3, -4, -6, -7, -8, -1, -2], [1, 2, 4, 1])
      const pool = tf.grad((v) => tf.maxPool(v, 2, 2, 'valid').sum())(x)
      const dw = tf.grad((f) => tf.conv2d(tf.ones([2, 4, 4, 1]), f, 1, 'same').sum())(tf.ones([3, 3, 1, 2]))
      const a = tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2])
      const mm = tf.matMul(a, a, true, false)
      console.log('RESULT ' + JSON.stringify({backend: tf.getBackend(), pool: Array.from(pool.dataSync()), dw: Array.from(dw.dataSync()), mm: Array.from(mm.dataSync())}))
    `
    const results = await Promise.all([true, false].map(async (first) => {
      const {stdout} = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(first)], {cwd: process.cwd()})
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '))
      assert.ok(line, `no result from the child (registerFirst=${first}): ${stdout}`)
      return JSON.parse(line.slice('RESULT '.length)) as {backend: string; pool: number[]; dw: number[]; mm: number[]}
    }))
    for (const r of results) {
      assert.equal(r.backend, 'wasm')
      assert.deepEqual(r.pool, [0, 1, 0, 0, 0, 0, 1, 0])
      // d/dW sum(conv2d(ones, W, same)) = per-tap count of in-bounds positions, times batch 2.
      assert.deepEqual(r.dw, [9, 9, 12, 12, 9, 9, 12, 12, 16, 16, 12, 12, 9, 9, 12, 12, 9, 9].map((v) => v * 2))
      assert.deepEqual(r.mm, [35, 44, 44, 56])
    }
  })
})
