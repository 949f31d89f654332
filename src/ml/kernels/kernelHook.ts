import * as tf from '@tensorflow/tfjs'
import type {KernelBackend, KernelConfig, KernelFunc, NamedAttrMap, NamedTensorInfoMap, TensorInfo} from '@tensorflow/tfjs'

import {BaseError} from '../../errors/base.js'

/** One top-level kernel call, seen after the kernel ran (its outputs are live on the backend). */
export type KernelCall<Backend extends KernelBackend = KernelBackend> = {
  kernelName: string
  inputs: NamedTensorInfoMap
  attrs: NamedAttrMap | undefined
  backend: Backend
  outputs: TensorInfo[]
}

export type KernelHook<Backend extends KernelBackend = KernelBackend> = (call: KernelCall<Backend>) => void

export type KernelHookOptions = {
  /** Refuse to install unless this backend is the active one (a hook that reads its heap needs it). */
  requireBackend?: string | undefined
}

export class KernelHookError extends BaseError {
  override name = 'KernelHookError'
}

// The kernel registry is global: one hook at a time per process (a dispute trace, a corruption or a FLOP count).
let active = false

/**
 * Wraps every kernel registered for the active backend so `hook` sees each top-level kernel call (one the
 * engine dispatched, not one a kernel made from inside another, e.g. the wasm Conv2DBackpropFilter fix
 * running BatchMatMul) after it ran and before the engine takes its outputs. Returns the function that puts
 * the original configs (the same objects) back.
 */
function install<Backend extends KernelBackend>(hook: KernelHook<Backend>, options: KernelHookOptions): () => void {
  if (active) throw new KernelHookError('kernel hook: expected no other trace, corruption or count in progress in this process, got a nested one')
  const backendName = tf.getBackend()
  if (options.requireBackend !== undefined && backendName !== options.requireBackend)
    throw new KernelHookError(`kernel hook: expected the ${options.requireBackend} backend to be active, got ${backendName}`)
  active = true
  let depth = 0
  const wrap = (config: KernelConfig): KernelConfig => {
    const original = config.kernelFunc
    const kernelFunc: KernelFunc = (args) => {
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
        backend: args.backend as Backend,
        outputs: Array.isArray(out) ? out : [out],
      })
      return out
    }
    return {...config, kernelFunc}
  }
  const installed: KernelConfig[] = []
  const restore = () => {
    for (const config of installed) {
      tf.unregisterKernel(config.kernelName, backendName)
      tf.registerKernel(config)
    }
    installed.length = 0
    active = false
  }
  try {
    for (const config of tf.getKernelsForBackend(backendName)) {
      tf.unregisterKernel(config.kernelName, backendName)
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
 * Runs `fn` synchronously with every kernel wrapped (see {@link install}) and puts the original kernels back
 * before returning or throwing, so no other code of this process can run while the wrappers are in place (a
 * TrainingSession step on one thread runs synchronously even though `run` returns a promise; worker threads run their own
 * kernels, which no hook here sees, so hooked sessions use `threads: 1`).
 */
export function withKernelHookSync<T, Backend extends KernelBackend = KernelBackend>(
  hook: KernelHook<Backend>,
  fn: () => T,
  options: KernelHookOptions = {},
): T {
  const restore = install(hook, options)
  try {
    return fn()
  } finally {
    restore()
  }
}

/**
 * Like {@link withKernelHookSync} for an asynchronous `fn` (training over many steps with awaited
 * checkpoints): the wrappers stay installed until `fn` settles, so kernels that other code of this process
 * runs meanwhile are seen too.
 */
export async function withKernelHook<T, Backend extends KernelBackend = KernelBackend>(
  hook: KernelHook<Backend>,
  fn: () => Promise<T>,
  options: KernelHookOptions = {},
): Promise<T> {
  const restore = install(hook, options)
  try {
    return await fn()
  } finally {
    restore()
  }
}
