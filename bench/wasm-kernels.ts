// Side-by-side timings of gensyn's wasm kernel fixes: `npx tsx bench/wasm-kernels.ts`.
//  1. transposed BatchMatMul: the stock wasm kernel vs the fixed one (ratio);
//  2. the kernels added/replaced (Conv2DBackpropFilter, MaxPoolGrad) vs the cpu backend's;
//  3. one training step of an MNIST-sized CNN: wasm with the fixes vs cpu (and wasm with the stock matmul).
import * as tf from '@tensorflow/tfjs'
import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'

import {registerWasmKernelFixes, stockWasmKernel} from '../src/ml/kernels/index.js'
import {seeded} from '../src/ml/kernels/testHelpers.js'

function tensor(seed: number, shape: number[], lo = -1, hi = 1): tf.Tensor {
  return tf.tensor(seeded(seed, shape.reduce((a, b) => a * b, 1), lo, hi), shape)
}

/** Median ms of `reps` timed runs after `warm` untimed ones. */
async function median(fn: () => unknown, reps: number, warm = 2): Promise<number> {
  for (let i = 0; i < warm; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now()
    await fn()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(reps / 2)] as number
}

const ms = (t: number): string => `${t.toFixed(2)} ms`.padStart(11)

async function benchMatMul(): Promise<void> {
  await tf.setBackend('wasm')
  const backend = tf.backend() as BackendWasm
  const stock = stockWasmKernel('BatchMatMul')
  if (stock === undefined) throw new Error('fixes not registered')
  console.log('\nBatchMatMul on wasm, stock kernel vs fixed (median of 15)')
  console.log('  product                                   transpose       stock       fixed   stock/fixed')
  const cases: [string, number, number, number][] = [
    ['dense 784->128, batch 64 (MNIST MLP)', 64, 784, 128],
    ['dense 128->10, batch 64', 64, 128, 10],
    ['square 256', 256, 256, 256],
    ['512x384 . 384x256', 512, 384, 256],
  ]
  for (const [label, m, k, n] of cases) {
    for (const [ta, tb] of [[true, false], [false, true], [true, true], [false, false]] as const) {
      const a = tensor(1, ta ? [k, m] : [m, k])
      const b = tensor(2, tb ? [n, k] : [k, n])
      const attrs = {transposeA: ta, transposeB: tb}
      const viaStock = () => {
        const out = stock.kernelFunc({inputs: {a, b}, backend, attrs}) as tf.TensorInfo
        backend.disposeData(out.dataId)
      }
      const viaFix = () => tf.matMul(a, b, ta, tb).dispose()
      // Interleave to share any machine noise fairly.
      const s1 = await median(viaStock, 7)
      const f1 = await median(viaFix, 7)
      const s2 = await median(viaStock, 8, 0)
      const f2 = await median(viaFix, 8, 0)
      const s = (s1 + s2) / 2
      const f = (f1 + f2) / 2
      const t = `${ta ? 'A^T' : 'A'} . ${tb ? 'B^T' : 'B'}`
      console.log(`  ${label.padEnd(40)} ${t.padStart(10)} ${ms(s)} ${ms(f)} ${(s / f).toFixed(1).padStart(9)}x`)
      a.dispose()
      b.dispose()
    }
  }
}

async function benchKernels(): Promise<void> {
  console.log('\nGradient kernels, MNIST-sized: batch 32, 28x28x1 -> 16 filters 3x3 valid -> maxPool 2 (median of 15)')
  console.log('  kernel                                            cpu        wasm   cpu/wasm')
  const run = async (label: string, make: () => tf.Tensor[], op: (...ts: tf.Tensor[]) => tf.Tensor) => {
    const times: number[] = []
    for (const backend of ['cpu', 'wasm'] as const) {
      await tf.setBackend(backend)
      const inputs = make()
      times.push(await median(() => op(...inputs).dispose(), 15))
      for (const t of inputs) t.dispose()
    }
    const [c, w] = times as [number, number]
    console.log(`  ${label.padEnd(44)} ${ms(c)} ${ms(w)} ${(c / w).toFixed(1).padStart(8)}x`)
  }
  await run('Conv2DBackpropFilter [32,28,28,1]->[3,3,1,16]', () => [tensor(3, [32, 28, 28, 1], 0, 1), tensor(4, [32, 26, 26, 16])], (x, dy) =>
    tf.engine().runKernel('Conv2DBackpropFilter', {x: x!, dy: dy!}, {strides: 1, pad: 'valid', dataFormat: 'NHWC', filterShape: [3, 3, 1, 16]}) as tf.Tensor)
  await run('MaxPoolGrad [32,26,26,16] pool 2', () => [tensor(5, [32, 26, 26, 16]), tensor(6, [32, 13, 13, 16])], (x, dy) =>
    tf.engine().runKernel('MaxPoolGrad', {dy: dy!, input: x!, output: dy!}, {filterSize: 2, strides: 2, pad: 'valid'}) as tf.Tensor)
  {
    // The stock wasm MaxPoolGrad, for speed only (it routes all-<=0 windows wrongly).
    await tf.setBackend('wasm')
    const backend = tf.backend() as BackendWasm
    const stock = stockWasmKernel('MaxPoolGrad')!
    stock.setupFunc?.(backend)
    const x = tensor(5, [32, 26, 26, 16])
    const dy = tensor(6, [32, 13, 13, 16])
    const t = await median(() => {
      const out = stock.kernelFunc({inputs: {dy, input: x, output: dy}, backend, attrs: {filterSize: 2, strides: 2, pad: 'valid'}}) as tf.TensorInfo
      backend.disposeData(out.dataId)
    }, 15)
    console.log(`  ${'MaxPoolGrad, stock wasm kernel (for reference)'.padEnd(44)} ${''.padStart(11)} ${ms(t)}`)
    x.dispose()
    dy.dispose()
  }
  await run('Conv2DBackpropInput [32,26,26,16]->[32,28,28,1]', () => [tensor(7, [32, 26, 26, 16]), tensor(8, [3, 3, 1, 16])], (dy, w) =>
    tf.engine().runKernel('Conv2DBackpropInput', {dy: dy!, filter: w!}, {strides: 1, pad: 'valid', dataFormat: 'NHWC', inputShape: [32, 28, 28, 1]}) as tf.Tensor)
}

function buildCnn(): tf.Sequential {
  const model = tf.sequential()
  model.add(tf.layers.conv2d({inputShape: [28, 28, 1], filters: 16, kernelSize: 3, activation: 'relu'}))
  model.add(tf.layers.maxPooling2d({poolSize: 2, strides: 2}))
  model.add(tf.layers.flatten())
  model.add(tf.layers.dense({units: 64, activation: 'relu'}))
  model.add(tf.layers.dense({units: 10, activation: 'softmax'}))
  return model
}

async function stepTime(backend: 'cpu' | 'wasm', reps: number): Promise<number> {
  await tf.setBackend(backend)
  const model = buildCnn()
  const optimizer = tf.train.sgd(0.05)
  model.compile({optimizer, loss: 'categoricalCrossentropy'})
  tf.tidy(() => model.setWeights(model.getWeights().map((w, i) => tf.tensor(seeded(100 + i, w.size, -0.1, 0.1), w.shape))))
  const x = tensor(9, [32, 28, 28, 1], 0, 1)
  const y = tf.tidy(() => tf.oneHot(tf.tensor1d(Array.from({length: 32}, (_, i) => i % 10), 'int32'), 10).toFloat())
  const t = await median(() => model.trainOnBatch(x, y), reps)
  x.dispose()
  y.dispose()
  model.dispose()
  optimizer.dispose()
  return t
}

async function benchTraining(): Promise<void> {
  console.log('\nOne training step (trainOnBatch, sgd), batch 32: conv2d 16x3x3 relu -> maxPool 2 -> flatten -> dense 64 relu -> dense 10')
  const cpu = await stepTime('cpu', 7)
  const wasm = await stepTime('wasm', 15)
  // Same, with the stock BatchMatMul put back (the other fixes are needed for the step to run at all).
  const fixed = tf.getKernel('BatchMatMul', 'wasm')!
  const stock = stockWasmKernel('BatchMatMul')!
  tf.unregisterKernel('BatchMatMul', 'wasm')
  tf.registerKernel(stock)
  let wasmStockMatMul: number
  try {
    wasmStockMatMul = await stepTime('wasm', 15)
  } finally {
    tf.unregisterKernel('BatchMatMul', 'wasm')
    tf.registerKernel(fixed)
  }
  console.log(`  cpu                                  ${ms(cpu)}`)
  console.log(`  wasm + fixes                         ${ms(wasm)}   (${(cpu / wasm).toFixed(1)}x faster than cpu)`)
  console.log(`  wasm + fixes but stock BatchMatMul   ${ms(wasmStockMatMul)}   (matmul fix saves ${(wasmStockMatMul / wasm).toFixed(1)}x)`)
}

const id = registerWasmKernelFixes()
await tf.setBackend('wasm')
await tf.ready()
console.log(`kernel set ${id}; tfjs ${tf.version.tfjs}; wasm simd ${String(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))}, threads ${String(await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'))}; node ${process.version}`)
await benchMatMul()
await benchKernels()
await benchTraining()
