import {BatchMatMul, Transpose, util, type BatchMatMulAttrs, type KernelConfig, type KernelFunc, type TensorInfo} from '@tensorflow/tfjs'

import {input, runSingle, wasmKernel, WasmKernelError, type WasmKernelArgs} from './wasmBackend.js'

/*
 * tfjs 4.22's wasm BatchMatMul (batch_mat_mul_impl.cc) sends only the case "no transpose, batch 1"
 * to XNNPACK's fully-connected operator; anything with transposeA or transposeB falls back to a
 * scalar blocked triple loop, about 10x slower. Dense-layer gradients are exactly such products
 * (dW = x^T dy, dx = dy W^T), so training ran on the slow loop.
 *
 * The replacement keeps the original kernel for the non-transposed case, and for a transposed,
 * batch-1 product transposes the operand(s) with the wasm Transpose kernel, then calls the original
 * with both flags false, which reaches XNNPACK. Intermediates are freed before returning.
 *
 * Batched products (more than one matrix on either side) take the scalar loop in the original with or
 * without transposes -- transposing first was measured to gain nothing there -- so they go to the
 * original unchanged.
 *
 * Numerics: XNNPACK's single-threaded gemm sums each output over k in order, in float32, without
 * FMA; deterministic for a given wasm binary, but not the same bits as the scalar loop.
 */

/** Where a fixed config keeps the kernel it wraps, so a second registration (even from a second copy of this module) finds the true original. */
export const ORIGINAL_KERNEL = Symbol.for('gensyn.wasmKernelFixes.originalKernel')

export type WrappingKernelConfig = KernelConfig & {[ORIGINAL_KERNEL]: KernelConfig}

/** The kernel a config wraps, if it is one of ours. */
export function wrappedKernel(config: KernelConfig): KernelConfig | undefined {
  return (config as Partial<WrappingKernelConfig>)[ORIGINAL_KERNEL]
}

/** Permutation swapping the last two axes of a rank-`rank` tensor. */
export function swapLastTwo(rank: number): number[] {
  const perm = Array.from({length: rank}, (_, i) => i)
  perm[rank - 2] = rank - 1
  perm[rank - 1] = rank - 2
  return perm
}

/** Builds the fixed BatchMatMul for wasm around the original kernel config. */
export function createBatchMatMulTransposedConfig(original: KernelConfig): WrappingKernelConfig {
  if (wrappedKernel(original) !== undefined) {
    throw new WasmKernelError('createBatchMatMulTransposedConfig was given an already-fixed BatchMatMul')
  }
  const originalFunc = original.kernelFunc

  const kernelFunc = (args: WasmKernelArgs): TensorInfo => {
    const {inputs, backend} = args
    const attrs = args.attrs as unknown as BatchMatMulAttrs
    const a = input(inputs, 'a', BatchMatMul)
    const b = input(inputs, 'b', BatchMatMul)
    const transposeA = attrs.transposeA === true
    const transposeB = attrs.transposeB === true
    if (a.shape.length < 2 || b.shape.length < 2) {
      throw new WasmKernelError(`${BatchMatMul}: inputs must be at least rank 2, got [${a.shape.join(', ')}] and [${b.shape.join(', ')}]`)
    }
    const batchA = util.sizeFromShape(a.shape.slice(0, -2))
    const batchB = util.sizeFromShape(b.shape.slice(0, -2))
    if ((!transposeA && !transposeB) || batchA !== 1 || batchB !== 1) return runSingle(originalFunc, args)

    const transpose = wasmKernel(Transpose).kernelFunc
    const temps: TensorInfo[] = []
    try {
      let a2 = a
      let b2 = b
      if (transposeA) {
        a2 = runSingle(transpose, {inputs: {x: a}, backend, attrs: {perm: swapLastTwo(a.shape.length)}})
        temps.push(a2)
      }
      if (transposeB) {
        b2 = runSingle(transpose, {inputs: {x: b}, backend, attrs: {perm: swapLastTwo(b.shape.length)}})
        temps.push(b2)
      }
      return runSingle(originalFunc, {
        inputs: {a: a2, b: b2},
        backend,
        attrs: {...args.attrs, transposeA: false, transposeB: false},
      })
    } finally {
      for (const t of temps) backend.disposeData(t.dataId)
    }
  }

  const config: WrappingKernelConfig = {
    kernelName: BatchMatMul,
    backendName: 'wasm',
    kernelFunc: kernelFunc as unknown as KernelFunc,
    [ORIGINAL_KERNEL]: original,
  }
  // The original's setup binds its wasm export; it must still run when the backend initialises after we replaced it.
  if (original.setupFunc !== undefined) config.setupFunc = original.setupFunc
  if (original.disposeFunc !== undefined) config.disposeFunc = original.disposeFunc
  return config
}
