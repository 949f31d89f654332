import * as tf from '@tensorflow/tfjs'
import type {KernelConfig, KernelFunc, NamedAttrMap, NamedTensorInfoMap, TensorInfo} from '@tensorflow/tfjs'
import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'
import {DisputeTraceError} from './errors.js'

/** One top-level kernel call, seen after the kernel ran (its outputs are live on the backend). */
export type KernelCall = {
  kernelName: string
  inputs: NamedTensorInfoMap
  attrs: NamedAttrMap | undefined
  backend: BackendWasm
  outputs: TensorInfo[]
}

export type KernelHook = (call: KernelCall) => void

let active = false

/**
 * Wraps every kernel registered for the wasm backend so `hook` sees each top-level kernel call (one the
 * engine dispatched, not one a kernel made from inside another) after it ran and before the engine takes
 * its outputs. Returns the function that puts the original configs (the same objects) back.
 */
function install(hook: KernelHook): () => void {
  if (active) throw new DisputeTraceError('kernel hook: expected no other trace or corruption in progress in this process, got a nested one')
  if (tf.getBackend() !== 'wasm') throw new DisputeTraceError(`kernel hook: expected the wasm backend to be active, got ${tf.getBackend()}`)
  active = true
  let depth = 0
  const wrap = (config: KernelConfig): KernelConfig => {
    const original = config.kernelFunc
    const kernelFunc: KernelFunc = (args) => {
      // a kernel implemented by dispatching other kernels: only the outer call is an operator of the trace
      if (depth > 0) return original(args)
      depth++
      let out: ReturnType<KernelFunc>
      try {
        out = original(args)
      } finally {
        depth--
      }
      hook({
        kernelName: config.kernelName,
        inputs: args.inputs,
        attrs: args.attrs,
        backend: args.backend as BackendWasm,
        outputs: Array.isArray(out) ? out : [out],
      })
      return out
    }
    return {...config, kernelFunc}
  }
  const installed: KernelConfig[] = []
  const restore = () => {
    for (const config of installed) {
      tf.unregisterKernel(config.kernelName, 'wasm')
      tf.registerKernel(config)
    }
    installed.length = 0
    active = false
  }
  try {
    for (const config of tf.getKernelsForBackend('wasm')) {
      tf.unregisterKernel(config.kernelName, 'wasm')
      installed.push(config)
      tf.registerKernel(wrap(config))
    }
  } catch (error) {
    restore()
    throw error
  }
  return restore
}

/**
 * Runs `fn` synchronously with every wasm kernel wrapped (see {@link install}) and puts the original
 * kernels back before returning or throwing, so no other code of this process can run while the wrappers
 * are in place (a TrainingSession step runs synchronously even though `run` returns a promise).
 */
export function withKernelHookSync<T>(hook: KernelHook, fn: () => T): T {
  const restore = install(hook)
  try {
    return fn()
  } finally {
    restore()
  }
}

/**
 * Like {@link withKernelHookSync} for an asynchronous `fn` (training over many steps with awaited
 * checkpoints): the wrappers stay installed until `fn` settles, so kernels that other code of this
 * process runs meanwhile are seen too. One hook at a time per process: the kernel registry is global.
 */
export async function withKernelHook<T>(hook: KernelHook, fn: () => Promise<T>): Promise<T> {
  const restore = install(hook)
  try {
    return await fn()
  } finally {
    restore()
  }
}
