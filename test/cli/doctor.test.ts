import assert from 'node:assert/strict'

import {runGensyn} from '../helpers/cli.js'

type Probe = {backend: string; available: boolean; runtime?: string; reason?: string}

describe('gensyn doctor', () => {
  it('names every backend once: wasm and cpu work, a missing one gives its reason in one line', async () => {
    const run = await runGensyn(['doctor', '--json'])
    assert.equal(run.exitCode, 0, String(run.stderr))
    const probes = JSON.parse(String(run.stdout)) as {backends: Probe[]; auto: string}
    assert.deepEqual(probes.backends.map((probe) => probe.backend), ['wasm', 'cpu', 'webgpu', 'gpu'])
    const [wasm, cpu, webgpu, gpu] = probes.backends as [Probe, Probe, Probe, Probe]
    assert.equal(wasm.available, true)
    assert.match(wasm.runtime ?? '', /^wasm\(simd\) tfjs@4\.22\.0 kernels=gensyn-wasm-fixes\/1$/)
    assert.equal(cpu.available, true)
    if (process.env.GENSYN_REQUIRE_WEBGPU === '1') assert.equal(webgpu.available, true, webgpu.reason)
    if (webgpu.available) assert.match(webgpu.runtime ?? '', /^webgpu\(.+\) tfjs@4\.22\.0 kernels=webgpu-pinned\/1 dawn@0\.6\.2 driver=.+/)
    for (const probe of probes.backends.filter((p) => !p.available)) {
      assert.match(probe.reason ?? '', new RegExp(`^backend ${probe.backend} is unavailable: .+; use --backend`))
      assert.ok(!(probe.reason ?? '').includes('\n'))
    }
    assert.equal(gpu.available, false, 'tfjs-node-gpu cannot install here (its install step downloads libtensorflow)')
    assert.ok(['wasm', 'webgpu'].includes(probes.auto))
  })

  it('refuses --backend webgpu with one line naming the backend and what to do when there is no adapter', async () => {
    // a Vulkan loader pointed at no driver: the machine has no GPU and no lavapipe
    const run = await runGensyn(['solve', 'fixtures/jobs/smoke-mlp.yaml', '--offline', '--out', '/nonexistent/proof', '--backend', 'webgpu'], {
      env: {FORCE_COLOR: '0', VK_ICD_FILENAMES: '/nonexistent/icd.json'},
    })
    assert.equal(run.exitCode, 1)
    const errors = String(run.stderr).split('\n').filter((line) => line.startsWith('Error:'))
    assert.deepEqual(errors, ['Error: backend webgpu is unavailable: no WebGPU adapter (no Vulkan driver found: a GPU needs the Vulkan ICD of its driver and libglvnd, without a GPU install lavapipe: scripts/install-lavapipe.sh); use --backend wasm'])
    assert.ok(!String(run.stderr).includes('at async'), 'no JavaScript stack trace')
  })

  it('every command that takes --backend offers webgpu and auto, and names them when given something else', async () => {
    for (const command of [['devnet', 'up'], ['solve'], ['verify'], ['submit', 'fixtures/jobs/smoke-mlp.yaml']]) {
      const run = await runGensyn([...command, '--backend', 'tpu'])
      assert.equal(run.exitCode, 2, command.join(' '))
      assert.match(String(run.stderr), /Expected --backend=tpu to be one of: wasm, cpu, webgpu, gpu, auto/, command.join(' '))
    }
  })
})
