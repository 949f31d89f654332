import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'
import {getKernel, type KernelConfig, type KernelFunc, type NamedAttrMap, type NamedTensorInfoMap, type TensorInfo} from '@tensorflow/tfjs'

import {BaseError} from '../../errors/base.js'

/** A kernel fix could not run: the wasm backend lacks what it composes, or the inputs are outside what it supports. */
export class WasmKernelError extends BaseError {
  override name = 'WasmKernelError'
}

/** The argument every tfjs kernel function receives, with the backend typed as the wasm one. */
export type WasmKernelArgs = {inputs: NamedTensorInfoMap; backend: BackendWasm; attrs?: NamedAttrMap}

/** Looks up a kernel registered for the wasm backend, failing loudly when it is not there. */
export function wasmKernel(kernelName: string): KernelConfig {
  const config = getKernel(kernelName, 'wasm')
  if (config === undefined) {
    throw new WasmKernelError(`wasm kernel '${kernelName}' is not registered`, {
      details: "import '@tensorflow/tfjs-backend-wasm' before using gensyn's wasm kernel fixes",
    })
  }
  return config
}

/** Runs a kernel function that returns exactly one tensor. */
export function runSingle(kernelFunc: KernelFunc, args: WasmKernelArgs): TensorInfo {
  const out = kernelFunc(args)
  if (Array.isArray(out)) {
    throw new WasmKernelError('a wasm kernel returned several tensors where one was expected')
  }
  return out
}

/** Names an input of a kernel call, failing when the engine did not pass it. */
export function input(inputs: NamedTensorInfoMap, name: string, kernelName: string): TensorInfo {
  const info = inputs[name]
  if (info === undefined) throw new WasmKernelError(`${kernelName}: input '${name}' is missing`)
  return info
}

/** Asserts a float32 tensor: the fixes read the wasm heap as Float32Array. */
export function assertFloat32(info: TensorInfo, name: string, kernelName: string): void {
  if (info.dtype !== 'float32') {
    throw new WasmKernelError(`${kernelName}: input '${name}' must be float32, got ${info.dtype}`)
  }
}

/** Asserts a rank-4 shape and returns it typed as a tuple. */
export function shape4(info: TensorInfo, name: string, kernelName: string): [number, number, number, number] {
  const s = info.shape
  if (s.length !== 4) throw new WasmKernelError(`${kernelName}: input '${name}' must be rank 4, got shape [${s.join(', ')}]`)
  return [s[0] as number, s[1] as number, s[2] as number, s[3] as number]
}

/** A heap view of a float32 tensor. Take views only after every makeOutput of the call: a heap growth detaches them. */
export function f32(backend: BackendWasm, info: TensorInfo): Float32Array {
  const view = backend.typedArrayFromHeap(info)
  if (!(view instanceof Float32Array)) throw new WasmKernelError('expected a float32 heap view')
  return view
}
