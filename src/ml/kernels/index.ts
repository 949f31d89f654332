// Side effect: registers the wasm backend and its stock kernels, which the fixes replace or compose.
import '@tensorflow/tfjs-backend-wasm'
import {BatchMatMul, getKernel, registerKernel, unregisterKernel, type KernelConfig} from '@tensorflow/tfjs'

import {createBatchMatMulTransposedConfig, wrappedKernel} from './batchMatMulTransposed.js'
import {conv2dBackpropFilterConfig} from './conv2dBackpropFilter.js'
import {maxPoolGradConfig} from './maxPoolGrad.js'
import {wasmKernel} from './wasmBackend.js'

export {conv2dBackpropFilterConfig} from './conv2dBackpropFilter.js'
export {createBatchMatMulTransposedConfig} from './batchMatMulTransposed.js'
export {maxPoolGradConfig} from './maxPoolGrad.js'
export {WasmKernelError} from './wasmBackend.js'

/**
 * Names the set of wasm kernel fixes and their numerics. It is part of every proof's runtime id:
 * bump the version whenever any fixed kernel's output bits can change (summation order, algorithm,
 * which kernel a case is routed to), so replays never compare runs made with different kernels.
 */
export const WASM_KERNEL_FIXES_ID = 'gensyn-wasm-fixes/1'

/** Kernel names this fix set registers for the wasm backend. */
export const WASM_FIXED_KERNELS = ['Conv2DBackpropFilter', 'MaxPoolGrad', 'BatchMatMul'] as const

let batchMatMulFix: KernelConfig | undefined
const stockKernels = new Map<string, KernelConfig | undefined>()

function install(config: KernelConfig): void {
  const current = getKernel(config.kernelName, 'wasm')
  if (current === config) return
  if (!stockKernels.has(config.kernelName)) stockKernels.set(config.kernelName, current === undefined ? undefined : (wrappedKernel(current) ?? current))
  // Unregister first: registerKernel would overwrite too, but warns on the console.
  if (current !== undefined) unregisterKernel(config.kernelName, 'wasm')
  registerKernel(config)
}

/**
 * Registers gensyn's fixes for tfjs 4.22's wasm backend and returns the fix set's id
 * (`WASM_KERNEL_FIXES_ID`) for the runtime id:
 *  - Conv2DBackpropFilter: missing from wasm; im2col + the wasm matmul.
 *  - MaxPoolGrad: wasm's loses the gradient of windows whose values are all <= 0; replaced by one
 *    matching the cpu backend bit for bit.
 *  - BatchMatMul: transposed batch-1 products transposed first so they reach XNNPACK (~10x faster);
 *    everything else goes to the original kernel.
 *
 * Idempotent, and callable at any time after this module is imported: before or after
 * `tf.setBackend('wasm')` / `tf.ready()`. Nothing here needs per-backend setup of its own; the one
 * replaced kernel that does (BatchMatMul) carries the original's setupFunc, which tfjs runs when the
 * wasm backend initialises, and which has already run if the backend was initialised before.
 * Kernels are looked up per call, so the fixes apply to the next op run after this returns.
 */
export function registerWasmKernelFixes(): string {
  install(conv2dBackpropFilterConfig)
  install(maxPoolGradConfig)

  const current = wasmKernel(BatchMatMul)
  if (current !== batchMatMulFix) {
    // If `current` is a fix from another copy of this module, wrap its original, never the fix itself.
    batchMatMulFix = createBatchMatMulTransposedConfig(wrappedKernel(current) ?? current)
    install(batchMatMulFix)
  }
  return WASM_KERNEL_FIXES_ID
}

/**
 * The kernel config the wasm backend had under `kernelName` before `registerWasmKernelFixes` replaced
 * it (undefined where it had none, or before registration). For benchmarks and tests that compare the
 * stock kernels with the fixes.
 */
export function stockWasmKernel(kernelName: (typeof WASM_FIXED_KERNELS)[number]): KernelConfig | undefined {
  return stockKernels.get(kernelName)
}
