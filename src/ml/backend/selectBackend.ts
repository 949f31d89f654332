import * as tf from '@tensorflow/tfjs'
import '@tensorflow/tfjs-backend-wasm'
import {registerWasmKernelFixes} from '../kernels/index.js'
import {activate} from './activateBackend.js'
import {BackendUnavailableError} from './errors.js'
import type {BackendChoice, BackendName, RuntimeId, WasmVariant} from './runtimeId.js'
import {initialiseWebgpu} from './webgpu/initialiseWebgpu.js'
import {isSoftwareAdapter} from './webgpu/loadDawn.js'

export type SelectBackendOptions = {
  /**
   * wasm only: force the binary ('scalar' sets tfjs's WASM_HAS_SIMD_SUPPORT flag to false before the
   * backend initialises). The wasm module loads once per process, so asking for a different variant
   * after that throws BackendUnavailableError.
   */
  wasmVariant?: WasmVariant
}

const tfBackendName: Record<BackendName, string> = {wasm: 'wasm', cpu: 'cpu', webgpu: 'webgpu', gpu: 'tensorflow'}
const selected = new Map<BackendName, RuntimeId>()
let wasmVariantLoaded: WasmVariant | undefined

/**
 * Makes `name` tfjs's active backend and returns the runtime id that proofs made with it carry.
 * Idempotent: the first call per backend initialises it, later calls only switch back to it.
 *
 * - `wasm` (default): tfjs-backend-wasm with gensyn's kernel fixes (src/ml/kernels). In Node the
 *   backend never uses threads (tfjs's WASM_HAS_MULTITHREAD_SUPPORT flag is hard-wired to false when
 *   IS_NODE), and it loads the SIMD binary when `WebAssembly.validate` accepts a SIMD probe (every
 *   Node >= 16.4), else the scalar one; the variant is read back from those two flags.
 * - `cpu`: tfjs's pure-JS backend; the runtime id includes the Node version.
 * - `webgpu`: tfjs-backend-webgpu on Dawn (the npm package `webgpu`), with the flags that make it
 *   run-to-run repeatable on one adapter, gated by a self-test (src/ml/backend/webgpu).
 * - `gpu`: `@tensorflow/tfjs-node-gpu` (optional dependency, needs CUDA), loaded with a dynamic import.
 * - `auto`: webgpu when it loads on a hardware adapter, else wasm (a software adapter is slower than wasm).
 *
 * @throws BackendUnavailableError when the backend cannot be loaded or initialised
 */
export async function selectBackend(choice: BackendChoice = 'wasm', options: SelectBackendOptions = {}): Promise<RuntimeId> {
  const name = choice === 'auto' ? await resolveAuto() : choice
  // Several actors in one process (tests, benches) may ask at once: the first initialisation serves them all.
  const pending = initialising.get(name)
  if (pending && !selected.has(name)) await pending.catch(() => undefined)
  const started = initialise(name, options)
  if (!selected.has(name)) initialising.set(name, started)
  try {
    return await started
  } finally {
    if (initialising.get(name) === started) initialising.delete(name)
  }
}

const initialising = new Map<BackendName, Promise<RuntimeId>>()

async function initialise(name: BackendName, options: SelectBackendOptions): Promise<RuntimeId> {
  if (name === 'wasm' && options.wasmVariant && wasmVariantLoaded && options.wasmVariant !== wasmVariantLoaded)
    throw new BackendUnavailableError(
      `backend wasm(${options.wasmVariant}) is unavailable: this process already loaded wasm(${wasmVariantLoaded}); run it in a new process`,
    )
  const cached = selected.get(name)
  if (cached) {
    if (tf.getBackend() !== tfBackendName[name]) await tf.setBackend(tfBackendName[name])
    return cached
  }
  // tfjs prints console banners (e.g. "install tfjs-node") unless PROD is set
  tf.env().set('PROD', true)
  const tfjs = tf.version_core
  let runtime: RuntimeId
  switch (name) {
    case 'wasm': {
      if (options.wasmVariant === 'scalar') tf.env().set('WASM_HAS_SIMD_SUPPORT', false)
      if (options.wasmVariant === 'simd-threaded')
        throw new BackendUnavailableError('backend wasm(simd-threaded) is unavailable: tfjs-backend-wasm never uses threads in Node')
      const kernels = registerWasmKernelFixes()
      await activate('wasm', 'tfjs-backend-wasm did not initialise')
      const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true
      const threads = (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true
      const wasmVariant: WasmVariant = simd ? (threads ? 'simd-threaded' : 'simd') : 'scalar'
      if (options.wasmVariant === 'simd' && wasmVariant !== 'simd')
        throw new BackendUnavailableError('backend wasm(simd) is unavailable: this Node does not validate WebAssembly SIMD')
      wasmVariantLoaded = wasmVariant
      runtime = {backend: 'wasm', tfjs, kernels, wasmVariant}
      break
    }
    case 'cpu':
      await activate('cpu', 'the tfjs cpu backend did not initialise')
      runtime = {backend: 'cpu', tfjs, kernels: 'tfjs-stock', node: process.versions.node}
      break
    case 'webgpu':
      runtime = await initialiseWebgpu(tfjs)
      break
    case 'gpu': {
      const specifier = '@tensorflow/tfjs-node-gpu'
      try {
        await import(specifier)
      } catch (error) {
        const notInstalled = (error as {code?: string}).code === 'ERR_MODULE_NOT_FOUND'
        const reason = notInstalled ? 'not installed' : error instanceof Error ? error.message.split('\n')[0] : String(error)
        throw new BackendUnavailableError(
          `backend gpu is unavailable: @tensorflow/tfjs-node-gpu did not load (${reason}; it needs CUDA 11.2 and cuDNN 8.1); use --backend webgpu or wasm`,
          {cause: error, details: 'the gpu backend needs the optional dependency @tensorflow/tfjs-node-gpu, CUDA 11.2, cuDNN 8.1 and libtensorflow'},
        )
      }
      await activate('tensorflow', 'tfjs-node-gpu did not initialise')
      runtime = {backend: 'gpu', tfjs, kernels: 'tfjs-stock'}
      break
    }
    default:
      throw new BackendUnavailableError(`backend: expected one of wasm, cpu, webgpu, gpu, auto, got ${JSON.stringify(name)}`)
  }
  selected.set(name, runtime)
  return runtime
}

let autoChoice: Promise<BackendName> | undefined

/** `auto`: webgpu on a hardware adapter that passes the self-test, else wasm. Decided once per process. */
function resolveAuto(): Promise<BackendName> {
  autoChoice ??= selectBackend('webgpu').then(
    (runtime) => (runtime.adapter && !isSoftwareAdapter(runtime.adapter) ? 'webgpu' : 'wasm'),
    () => 'wasm' as const,
  )
  return autoChoice
}

