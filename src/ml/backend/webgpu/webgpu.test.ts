import assert from 'node:assert/strict'

import * as tf from '@tensorflow/tfjs'
import {execa} from 'execa'

import {runtimeIdString} from '../runtimeId.js'
import {selectBackend} from '../selectBackend.js'
import {repeatabilitySelfTest} from './repeatabilitySelfTest.js'
import {requireWebgpu} from './requireWebgpu.js'
import {webgpuKernels} from './initialiseWebgpu.js'
import {isSoftwareAdapter} from './loadDawn.js'

describe('webgpu backend (Dawn; lavapipe where there is no GPU)', () => {
  it('records the adapter and driver in the runtime id, with the pinned kernel set', async function () {
    const runtime = await requireWebgpu(this)
    assert.equal(tf.getBackend(), 'webgpu')
    assert.equal(runtime.backend, 'webgpu')
    assert.equal(runtime.kernels, webgpuKernels)
    assert.ok(runtime.adapter && runtime.adapter.description.length > 0, 'the driver is named')
    const id = runtimeIdString(runtime)
    assert.ok(id.startsWith(`webgpu(${runtime.adapter.vendor}/${runtime.adapter.architecture}/${runtime.adapter.device}) tfjs@4.22.0 kernels=webgpu-pinned/1 dawn@0.6.2 driver=`), id)
    assert.equal(tf.env().getBool('WEBGPU_CPU_FORWARD'), false)
    assert.equal(tf.env().getNumber('WEBGPU_MATMUL_PROGRAM_TYPE'), 3)
    await selectBackend('wasm')
  })

  it('replays a training step bit for bit (the self-test that gates every run), and differs from wasm', async function () {
    await requireWebgpu(this)
    const gpu = await repeatabilitySelfTest('webgpu')
    assert.equal(await repeatabilitySelfTest('webgpu'), gpu)
    await selectBackend('wasm')
    const wasm = await repeatabilitySelfTest('wasm')
    assert.notEqual(wasm, gpu, 'wasm and webgpu sum in different orders; equal hashes would mean webgpu never ran')
  })

  it('auto picks wasm on a software adapter (lavapipe is slower than wasm) and webgpu on a hardware one', async function () {
    const gpu = await requireWebgpu(this)
    const auto = await selectBackend('auto')
    assert.ok(gpu.adapter)
    assert.equal(auto.backend, isSoftwareAdapter(gpu.adapter) ? 'wasm' : 'webgpu')
    await selectBackend('wasm')
  })

  it('stops the process with one line on an uncaptured GPU error (a buffer over the adapter limit), instead of computing garbage', async function () {
    await requireWebgpu(this)
    // a 40000 x 40000 product: 6.4 GB in one GPU buffer, over the 4 GiB maxBufferSize (Dawn's validation refuses it;
    // a true out-of-memory error takes the same uncapturederror path and is worded 'the GPU ran out of memory')
    const script = `import * as tf from '@tensorflow/tfjs'; import {selectBackend} from './src/ml/backend/index.js'; await selectBackend('webgpu'); console.log(await tf.matMul(tf.ones([40000, 1]), tf.ones([1, 40000])).sum().data())`
    const run = await execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {reject: false})
    assert.equal(run.exitCode, 70)
    assert.equal(String(run.stdout), '', 'no result was printed')
    const errors = String(run.stderr).split('\n').filter((line) => line.startsWith('Error:'))
    assert.equal(errors.length, 1)
    assert.match(errors[0] ?? '', /^Error: backend webgpu: a GPU error \(Buffer size \(6400000000\) exceeds the max buffer size limit \(\d+\)\.\); the task is left to the protocol's timeouts \(rerun with --backend wasm, or a smaller batch\)$/)
  })
})
