import * as tf from '@tensorflow/tfjs'
import '@tensorflow/tfjs-backend-wasm'
import {registerWasmKernelFixes} from '../kernels/index.js'
import {BackendUnavailableError} from './errors.js'
import type {BackendName, RuntimeId, WasmVariant} from './runtimeId.js'

export type SelectBackendOptions = {
  /**
   * wasm only: force the binary ('scalar' sets tfjs's WASM_HAS_SIMD_SUPPORT flag to false before the
   * backend initialises). The wasm module loads once per process, so asking for a different variant
   * after that throws BackendUnavailableError.
   */
  wasmVariant?: WasmVariant
}

const tfBackendName: Record<BackendName, string> = {wasm: 'wasm', cpu: 'cpu', gpu: 'tensorflow'}
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
 * - `gpu`: `@tensorflow/tfjs-node-gpu` (optional dependency, needs CUDA), loaded with a dynamic import.
 *
 * @throws BackendUnavailableError when the backend cannot be loaded or initialised
 */
export async function selectBackend(name: BackendName = 'wasm', options: SelectBackendOptions = {}): Promise<RuntimeId> {
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
    case 'gpu': {
      const specifier = '@tensorflow/tfjs-node-gpu'
      try {
        await import(specifier)
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
        throw new BackendUnavailableError(
          `backend gpu is unavailable: @tensorflow/tfjs-node-gpu did not load (${reason}); use --backend wasm`,
          {cause: error, details: 'the gpu backend needs the optional dependency @tensorflow/tfjs-node-gpu, CUDA and libtensorflow'},
        )
      }
      await activate('tensorflow', 'tfjs-node-gpu did not initialise')
      runtime = {backend: 'gpu', tfjs, kernels: 'tfjs-stock'}
      break
    }
    default:
      throw new BackendUnavailableError(`backend: expected one of wasm, cpu, gpu, got ${JSON.stringify(name)}`)
  }
  selected.set(name, runtime)
  return runtime
}

async function activate(tfName: string, what: string): Promise<void> {
  let ok: boolean
  try {
    ok = await tf.setBackend(tfName)
    await tf.ready()
  } catch (error) {
    throw new BackendUnavailableError(`backend ${tfName} is unavailable: ${what}`, {cause: error})
  }
  if (!ok || tf.getBackend() !== tfName) throw new BackendUnavailableError(`backend ${tfName} is unavailable: ${what}`)
}
