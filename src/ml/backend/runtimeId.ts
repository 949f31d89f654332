/** The tfjs backends gensyn can train on. */
export type BackendName = 'wasm' | 'cpu' | 'gpu'

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
}

export const backendNames: readonly BackendName[] = ['wasm', 'cpu', 'gpu']

/** One-line form, e.g. `wasm(simd) tfjs@4.22.0 kernels=gensyn-wasm-fixes/1`. */
export function runtimeIdString(runtime: RuntimeId): string {
  const parts = [
    runtime.wasmVariant ? `${runtime.backend}(${runtime.wasmVariant})` : runtime.backend,
    `tfjs@${runtime.tfjs}`,
    `kernels=${runtime.kernels}`,
  ]
  if (runtime.node) parts.push(`node@${runtime.node}`)
  return parts.join(' ')
}

/** True when two runtime ids name the same runtime (hashes between them are comparable). */
export function sameRuntime(a: RuntimeId, b: RuntimeId): boolean {
  return runtimeIdString(a) === runtimeIdString(b)
}
