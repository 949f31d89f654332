// Shared by the kernel tests: run the same computation on the cpu and wasm backends and compare.
import * as tf from '@tensorflow/tfjs'
import type {BackendWasm} from '@tensorflow/tfjs-backend-wasm'

import {registerWasmKernelFixes} from './index.js'

export type Backend = 'cpu' | 'wasm'

/** Registers the fixes, initialises both backends, and returns a restore function for the previous backend. */
export async function setUpBackends(): Promise<() => Promise<void>> {
  registerWasmKernelFixes()
  const previous = tf.engine().backendName as string | null
  await tf.setBackend('cpu')
  await tf.setBackend('wasm')
  await tf.ready()
  return async () => {
    if (previous) await tf.setBackend(previous)
  }
}

/** Deterministic float32 values in [lo, hi): a backend-independent source of inputs. */
export function seeded(seed: number, size: number, lo = -1, hi = 1): Float32Array {
  let s = seed >>> 0 || 1
  const out = new Float32Array(size)
  for (let i = 0; i < size; i++) {
    // xorshift32
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    out[i] = lo + ((s >>> 8) / 16777216) * (hi - lo)
  }
  return out
}

/** A host-side tensor description that can be materialised on any backend. */
export type HostTensor = {values: Float32Array; shape: number[]}

export function host(seed: number, shape: number[], lo = -1, hi = 1): HostTensor {
  return {values: seeded(seed, shape.reduce((a, b) => a * b, 1), lo, hi), shape}
}

/**
 * Switches to `backend`, materialises `inputs` there, runs `fn` in a tidy, and returns copies of the
 * outputs' values. Leaves no tensors behind.
 */
export async function runOn(backend: Backend, inputs: HostTensor[], fn: (...ts: tf.Tensor[]) => tf.Tensor | tf.Tensor[]): Promise<Float32Array[]> {
  await tf.setBackend(backend)
  const values: Float32Array[] = []
  tf.tidy(() => {
    const ts = inputs.map((h) => tf.tensor(h.values, h.shape, 'float32'))
    const out = fn(...ts)
    for (const t of Array.isArray(out) ? out : [out]) values.push(Float32Array.from(t.dataSync() as Float32Array))
  })
  return values
}

/** max |a - b| / max(max |b|, 1e-30). */
export function relDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`)
  let diff = 0
  let scale = 1e-30
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)))
    scale = Math.max(scale, Math.abs(b[i] as number))
  }
  return diff / scale
}

/** Byte-level equality of two float32 arrays (distinguishes -0 and NaN payloads). */
export function sameBits(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length)
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length)
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false
  return true
}

/** Tensors, bytes and wasm data buffers currently alive: equal before and after a leak-free computation. */
export function liveCounts(): {numTensors: number; numBytes: number; wasmDataIds: number} {
  const m = tf.memory()
  const wasm = tf.engine().registry['wasm'] as unknown as BackendWasm | undefined
  return {numTensors: m.numTensors, numBytes: m.numBytes, wasmDataIds: wasm === undefined ? 0 : wasm.numDataIds()}
}
