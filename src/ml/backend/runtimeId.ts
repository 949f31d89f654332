import type {AdapterInfo} from './webgpu/loadDawn.js'

/** The tfjs backends gensyn can train on. */
export type BackendName = 'wasm' | 'cpu' | 'webgpu' | 'gpu'

/** A backend, or `auto`: webgpu on a hardware adapter that passes the repeatability self-test, else wasm. */
export type BackendChoice = BackendName | 'auto'

/** Which tfjs-backend-wasm binary runs: XNNPACK's SIMD and scalar kernels sum in different orders. */
export type WasmVariant = 'simd' | 'simd-threaded' | 'scalar'

/**
 * Everything that decides the bits a training step produces. Hashes are only comparable between
 * identical runtime ids.
 */
export type RuntimeId = {
  backend: BackendName
  /** @tensorflow/tfjs-core version. */
  tfjs: string
  /** Kernel set: `gensyn-wasm-fixes/<n>` on wasm, `tfjs-stock` otherwise. */
  kernels: string
  /** wasm only: which binary tfjs-backend-wasm loaded. */
  wasmVariant?: WasmVariant
  /** cpu only: Node version (the JS backend's Math.exp/log/tanh come from V8). */
  node?: string
  /** webgpu only: the adapter and driver (WGSL lets drivers reorder float operations, so bits are per adapter). */
  adapter?: AdapterInfo
  /** webgpu only: the version of the npm package `webgpu` (Dawn, which translates WGSL for the driver). */
  dawn?: string
}

export const backendNames: readonly BackendName[] = ['wasm', 'cpu', 'webgpu', 'gpu']

export const backendChoices: readonly BackendChoice[] = [...backendNames, 'auto']

/**
 * One-line form, e.g. `wasm(simd) tfjs@4.22.0 kernels=gensyn-wasm-fixes/1` or
 * `webgpu(mesa/software/llvmpipe) tfjs@4.22.0 kernels=webgpu-pinned/1 dawn@0.6.2 driver=llvmpipe: Mesa 25.0.7`.
 */
export function runtimeIdString(runtime: RuntimeId): string {
  const {adapter} = runtime
  const variant = runtime.wasmVariant ?? (adapter ? `${adapter.vendor}/${adapter.architecture}/${adapter.device}` : undefined)
  const parts = [variant ? `${runtime.backend}(${variant})` : runtime.backend, `tfjs@${runtime.tfjs}`, `kernels=${runtime.kernels}`]
  if (runtime.node) parts.push(`node@${runtime.node}`)
  if (runtime.dawn) parts.push(`dawn@${runtime.dawn}`)
  if (adapter) parts.push(`driver=${adapter.description}`)
  return parts.join(' ')
}

/** True when two runtime ids name the same runtime (hashes between them are comparable). */
export function sameRuntime(a: RuntimeId, b: RuntimeId): boolean {
  return runtimeIdString(a) === runtimeIdString(b)
}
