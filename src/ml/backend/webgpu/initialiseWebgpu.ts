import * as tf from '@tensorflow/tfjs'
// imported, not required at run time, so a bundle (bench/bundle) carries the version of the Dawn it was built with
import webgpuPackage from 'webgpu/package.json' with {type: 'json'}

import {BackendUnavailableError} from '../errors.js'
import type {RuntimeId} from '../runtimeId.js'
import {activate} from '../activateBackend.js'
import {loadDawn} from './loadDawn.js'
import {repeatabilitySelfTest} from './repeatabilitySelfTest.js'

/**
 * The kernel set gensyn pins on webgpu (bump when the flags below change; it is part of the runtime id):
 * - WEBGPU_CPU_FORWARD off: tfjs would run small ops on the JS cpu backend, so bits would depend on tensor sizes;
 * - WEBGPU_MATMUL_PROGRAM_TYPE = 3 (MatMulPackedProgram) for every matmul: tfjs otherwise picks the split-K
 *   program for some weight-gradient shapes, which accumulates with atomicAdd in whatever order threads finish.
 * The other atomics in tfjs-backend-webgpu (unsorted segment sum, scatter, bincount) are never reached: an
 * embedding trains as a one-hot matmul (src/ml/model).
 */
export const webgpuKernels = 'webgpu-pinned/1'

/** Loads Dawn, pins the flags, activates tfjs-backend-webgpu and runs the repeatability self-test. */
export async function initialiseWebgpu(tfjs: string): Promise<RuntimeId> {
  const {adapter} = await loadDawn()
  try {
    await import('@tensorflow/tfjs-backend-webgpu')
  } catch (error) {
    throw new BackendUnavailableError(`backend webgpu is unavailable: @tensorflow/tfjs-backend-webgpu did not load (${String(error).split('\n')[0]}); use --backend wasm`, {cause: error})
  }
  tf.env().set('WEBGPU_CPU_FORWARD', false)
  tf.env().set('WEBGPU_MATMUL_PROGRAM_TYPE', 3)
  await activate('webgpu', 'tfjs-backend-webgpu found no usable device')
  watchDevice()
  await repeatabilitySelfTest('webgpu')
  return {backend: 'webgpu', tfjs, kernels: webgpuKernels, dawn: dawnVersion(), adapter}
}

/** The installed `webgpu` package's version: its Dawn build compiles the WGSL, so it is part of the runtime. */
function dawnVersion(): string {
  return webgpuPackage.version
}

/**
 * A device lost mid-training (driver reset, GPU unplugged) or an uncaptured GPU error (out of memory, a buffer over
 * the adapter's limits) leaves later kernels silently computing nothing: the process stops with one line instead,
 * so the role's task falls to the protocol's timeouts and the checkpoints already stored stay where they are.
 */
function watchDevice(): void {
  type Device = EventTarget & {lost?: Promise<{reason: string; message: string}>}
  const device = (tf.backend() as unknown as {device?: Device}).device
  const stop = (what: string) => {
    process.stderr.write(`Error: backend webgpu: ${what}; the task is left to the protocol's timeouts (rerun with --backend wasm, or a smaller batch)\n`)
    process.exit(70)
  }
  void device?.lost?.then((info) => {
    if (info.reason !== 'destroyed') stop(`the GPU device was lost (${firstLine(info.message) || info.reason})`)
  })
  device?.addEventListener?.('uncapturederror', (event) => {
    const error = (event as Event & {error?: {message?: string; constructor?: {name?: string}}}).error
    const kind = error?.constructor?.name === 'GPUOutOfMemoryError' ? 'the GPU ran out of memory' : 'a GPU error'
    stop(`${kind} (${firstLine(error?.message ?? '')})`)
  })
}

const firstLine = (text: string) => text.split('\n').find((line) => line.trim() !== '')?.trim() ?? ''
