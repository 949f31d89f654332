import {backend_util, MaxPoolGrad, type KernelConfig, type KernelFunc, type MaxPoolGradAttrs, type TensorInfo} from '@tensorflow/tfjs'

import {assertFloat32, f32, input, shape4, type WasmKernelArgs} from './wasmBackend.js'

/*
 * tfjs 4.22's wasm MaxPoolGrad (MaxPoolGrad.cc) seeds each window's running max with
 * std::numeric_limits<float>::min() -- the smallest *positive* float, not the lowest one -- and keeps
 * the last of equal maxima (>=). A window whose values are all <= 0 (all negative, or all zero after a
 * relu) therefore never records a position: its gradient goes to the wrong element (position 0) or
 * is lost. This replacement follows the cpu backend exactly:
 *  - argmax per window scanned row-major, first strict maximum wins (`>` against a -Infinity seed, so
 *    NaN never wins and a window with no winner routes no gradient);
 *  - each dx element sums the dy of the windows whose argmax it is, in ascending (dyRow, dyCol)
 *    order, in float64, rounded to float32 once.
 * Results are bit-identical to the cpu kernel, and deterministic.
 */

/**
 * dx of a max pool, written into every element of `dx`. For each window (batch, row, col ascending) it
 * finds the argmax per channel -- scanned row-major, first strict maximum wins against a -Infinity
 * seed, as the cpu backend's maxPoolPositions -- and adds the window's dy there. The sums run in a
 * float64 buffer, so each dx element adds its windows' dy in ascending (row, col) order in float64 and
 * is rounded to float32 once: the same operations, in the same order, as the cpu kernel's gather.
 */
export function maxPoolBackprop(x: ArrayLike<number>, dy: ArrayLike<number>, dx: Float32Array, info: backend_util.Conv2DInfo): void {
  const {batchSize, inHeight, inWidth, inChannels: channels, outHeight, outWidth, strideHeight, strideWidth} = info
  const {effectiveFilterHeight: fh, effectiveFilterWidth: fw} = info
  const padTop = info.padInfo.top
  const padLeft = info.padInfo.left
  // Windows overlap only when the stride is smaller than the window; otherwise each dx gets at most one
  // dy and 0 + dy is exact in float32, so the float64 buffer is skipped.
  const overlapping = strideHeight < fh || strideWidth < fw
  const acc: Float32Array | Float64Array = overlapping ? new Float64Array(dx.length) : dx
  if (!overlapping) dx.fill(0)
  const best = new Float32Array(channels)
  const where = new Int32Array(channels)
  let o = 0
  for (let b = 0; b < batchSize; b++) {
    const xBatch = b * inHeight * inWidth * channels
    for (let yR = 0; yR < outHeight; yR++) {
      const rCorner = yR * strideHeight - padTop
      const rMin = Math.max(0, rCorner)
      const rMax = Math.min(inHeight, rCorner + fh)
      for (let yC = 0; yC < outWidth; yC++) {
        const cCorner = yC * strideWidth - padLeft
        const cMin = Math.max(0, cCorner)
        const cMax = Math.min(inWidth, cCorner + fw)
        best.fill(Number.NEGATIVE_INFINITY)
        where.fill(-1)
        for (let xR = rMin; xR < rMax; xR++) {
          for (let xC = cMin; xC < cMax; xC++) {
            const base = xBatch + (xR * inWidth + xC) * channels
            for (let d = 0; d < channels; d++) {
              const v = x[base + d] as number
              if (v > (best[d] as number)) {
                best[d] = v
                where[d] = base + d
              }
            }
          }
        }
        for (let d = 0; d < channels; d++) {
          const i = where[d] as number
          if (i >= 0) acc[i] = (acc[i] as number) + (dy[o + d] as number)
        }
        o += channels
      }
    }
  }
  if (overlapping) dx.set(acc)
}

function maxPoolGradWasm(args: WasmKernelArgs): TensorInfo {
  const {inputs, backend} = args
  const attrs = args.attrs as unknown as MaxPoolGradAttrs
  const x = input(inputs, 'input', MaxPoolGrad)
  const dy = input(inputs, 'dy', MaxPoolGrad)
  assertFloat32(x, 'input', MaxPoolGrad)
  assertFloat32(dy, 'dy', MaxPoolGrad)
  const info = backend_util.computePool2DInfo(
    shape4(x, 'input', MaxPoolGrad), attrs.filterSize, attrs.strides, 1, attrs.pad, attrs.dimRoundingMode)
  const dx = backend.makeOutput(x.shape, 'float32')
  // Views only after the last allocation of this call.
  maxPoolBackprop(f32(backend, x), f32(backend, dy), f32(backend, dx), info)
  return dx
}

/** MaxPoolGrad for the wasm backend, matching the cpu backend bit for bit. */
export const maxPoolGradConfig: KernelConfig = {
  kernelName: MaxPoolGrad,
  backendName: 'wasm',
  kernelFunc: maxPoolGradWasm as unknown as KernelFunc,
}
