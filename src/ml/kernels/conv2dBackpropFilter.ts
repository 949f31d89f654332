import {backend_util, BatchMatMul, Conv2DBackpropFilter, type Conv2DBackpropFilterAttrs, type KernelConfig, type KernelFunc, type TensorInfo} from '@tensorflow/tfjs'

import {assertFloat32, f32, input, runSingle, shape4, wasmKernel, WasmKernelError, type WasmKernelArgs} from './wasmBackend.js'

/*
 * tfjs 4.22's wasm backend registers no Conv2DBackpropFilter, so the gradient of any conv2d (and so
 * training any CNN) throws "Kernel 'Conv2DBackpropFilter' not registered for backend 'wasm'".
 *
 * This one is im2col + the wasm matmul:
 *   cols[k, n]  with k = (wR, wC, inC) in filter order and n = (b, yR, yC) in dy order,
 *               cols[k, n] = x[b, yR*strideH + wR - padTop, yC*strideW + wC - padLeft, inC], 0 in the padding;
 *   dW[k, outC] = cols [K x N] . dy [N x outC]    (dy in NHWC is already [N x outC] row-major)
 * A non-transposed batch-1 product, so the wasm BatchMatMul runs it on XNNPACK's gemm, whose sums run
 * over n in order in float32: deterministic. dW[K x outC] row-major is the filter layout
 * [fh, fw, inC, outC] already, so no transpose is needed anywhere.
 *
 * dy is copied before it is handed to the matmul: the wasm matmul caches an XNNPACK operator with its
 * weights packed, keyed by the weight tensor's id, and keeps it until that tensor is disposed; a
 * private copy frees it at once and cannot collide with another use of dy's buffer in another shape.
 *
 * Supports NHWC (the only layout wasm Conv2D runs) and dilation 1 (the only one tfjs differentiates).
 */

/** Fills `cols` ([fh*fw*inC, batch*outH*outW] row-major) from NHWC `x`. Writes every element. */
export function im2colTransposed(x: Float32Array, cols: Float32Array, info: backend_util.Conv2DInfo): void {
  const {batchSize, inHeight, inWidth, inChannels, outHeight, outWidth, strideHeight, strideWidth, filterHeight, filterWidth} = info
  const padTop = info.padInfo.top
  const padLeft = info.padInfo.left
  const rowStride = inWidth * inChannels
  const batchStride = inHeight * rowStride
  let i = 0
  for (let wR = 0; wR < filterHeight; wR++) {
    for (let wC = 0; wC < filterWidth; wC++) {
      for (let d1 = 0; d1 < inChannels; d1++) {
        for (let b = 0; b < batchSize; b++) {
          for (let yR = 0; yR < outHeight; yR++) {
            const xR = yR * strideHeight + wR - padTop
            if (xR < 0 || xR >= inHeight) {
              cols.fill(0, i, i + outWidth)
              i += outWidth
              continue
            }
            const rowBase = b * batchStride + xR * rowStride + d1
            for (let yC = 0; yC < outWidth; yC++) {
              const xC = yC * strideWidth + wC - padLeft
              cols[i++] = xC >= 0 && xC < inWidth ? (x[rowBase + xC * inChannels] as number) : 0
            }
          }
        }
      }
    }
  }
}

function conv2dBackpropFilterWasm(args: WasmKernelArgs): TensorInfo {
  const {inputs, backend} = args
  const attrs = args.attrs as unknown as Conv2DBackpropFilterAttrs
  const x = input(inputs, 'x', Conv2DBackpropFilter)
  const dy = input(inputs, 'dy', Conv2DBackpropFilter)
  assertFloat32(x, 'x', Conv2DBackpropFilter)
  assertFloat32(dy, 'dy', Conv2DBackpropFilter)
  const dataFormat = backend_util.convertConv2DDataFormat(attrs.dataFormat ?? 'NHWC')
  if (dataFormat !== 'channelsLast') {
    throw new WasmKernelError(`${Conv2DBackpropFilter}: wasm supports dataFormat 'NHWC' only, got '${attrs.dataFormat}'`)
  }
  const info = backend_util.computeConv2DInfo(
    shape4(x, 'x', Conv2DBackpropFilter), attrs.filterShape, attrs.strides, 1, attrs.pad, attrs.dimRoundingMode, false, dataFormat)
  const k = info.filterHeight * info.filterWidth * info.inChannels
  const n = info.batchSize * info.outHeight * info.outWidth
  const dyShape = [info.batchSize, info.outHeight, info.outWidth, info.outChannels]
  if (dy.shape.length !== 4 || dy.shape.some((s, i) => s !== dyShape[i])) {
    throw new WasmKernelError(`${Conv2DBackpropFilter}: dy has shape [${dy.shape.join(', ')}], expected [${dyShape.join(', ')}]`)
  }

  const cols = backend.makeOutput([k, n], 'float32')
  const dyCopy = backend.makeOutput([n, info.outChannels], 'float32')
  try {
    // Views only after the last allocation above.
    im2colTransposed(f32(backend, x), f32(backend, cols), info)
    f32(backend, dyCopy).set(f32(backend, dy))
    const out = runSingle(wasmKernel(BatchMatMul).kernelFunc, {
      inputs: {a: cols, b: dyCopy},
      backend,
      attrs: {transposeA: false, transposeB: false},
    })
    return {dataId: out.dataId, shape: [...info.filterShape], dtype: out.dtype}
  } finally {
    backend.disposeData(cols.dataId)
    backend.disposeData(dyCopy.dataId)
  }
}

/** Conv2DBackpropFilter for the wasm backend (absent from tfjs 4.22's wasm backend). */
export const conv2dBackpropFilterConfig: KernelConfig = {
  kernelName: Conv2DBackpropFilter,
  backendName: 'wasm',
  kernelFunc: conv2dBackpropFilterWasm as unknown as KernelFunc,
}
