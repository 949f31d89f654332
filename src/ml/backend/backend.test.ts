import assert from 'node:assert/strict'
import * as tf from '@tensorflow/tfjs'
import {BackendUnavailableError, runtimeIdString, selectBackend} from './index.js'

describe('selectBackend', () => {
  it('selects wasm by default with the kernel fixes and reports its binary variant', async () => {
    const runtime = await selectBackend()
    assert.equal(tf.getBackend(), 'wasm')
    assert.equal(runtime.backend, 'wasm')
    assert.equal(runtime.tfjs, '4.22.0')
    assert.equal(runtime.kernels, 'gensyn-wasm-fixes/1')
    // Node: no wasm threads in tfjs 4.22; SIMD whenever WebAssembly.validate accepts a SIMD module
    assert.equal(runtime.wasmVariant, 'simd')
    assert.equal(runtime.node, undefined)
    assert.equal(runtimeIdString(runtime), 'wasm(simd) tfjs@4.22.0 kernels=gensyn-wasm-fixes/1')
  })

  it('is idempotent and switches between backends', async () => {
    const a = await selectBackend('wasm')
    const cpu = await selectBackend('cpu')
    assert.equal(tf.getBackend(), 'cpu')
    assert.equal(cpu.node, process.versions.node)
    assert.equal(runtimeIdString(cpu), `cpu tfjs@4.22.0 kernels=tfjs-stock node@${process.versions.node}`)
    const b = await selectBackend('wasm')
    assert.equal(tf.getBackend(), 'wasm')
    assert.equal(a, b)
  })

  it('refuses a second wasm variant in one process', async () => {
    await selectBackend('wasm')
    await assert.rejects(selectBackend('wasm', {wasmVariant: 'scalar'}), /this process already loaded wasm\(simd\)/)
  })

  it('fails clearly when the gpu backend is not installed', async function () {
    const specifier = '@tensorflow/tfjs-node-gpu'
    const installed = await import(specifier).then(
      () => true,
      () => false,
    )
    if (installed) this.skip()
    await assert.rejects(selectBackend('gpu'), (error: unknown) => {
      assert.ok(error instanceof BackendUnavailableError)
      assert.match(error.shortMessage, /^backend gpu is unavailable: @tensorflow\/tfjs-node-gpu did not load \(not installed; it needs CUDA 11\.2 and cuDNN 8\.1\); use --backend webgpu or wasm$/)
      assert.ok(!error.shortMessage.includes('\n'))
      return true
    })
    await selectBackend('wasm')
  })
})
