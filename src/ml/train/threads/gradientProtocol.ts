import type {JobSpec} from '../../spec/schema.js'
import type {MicroBatch} from '../microBatches.js'

/** What a gradient worker is started with: the job, and the backend it must run (the main thread's). */
export type GradientWorkerData = {spec: JobSpec; backend: 'wasm' | 'cpu'; wasmVariant: 'simd' | 'scalar' | undefined}

/** Main -> worker: the weights of step `step` (checkpoint order) and the micro-batches this worker computes. */
export type GradientRequest = {type: 'step'; step: number; weights: Float32Array[]; microBatches: MicroBatch[]}

/** One micro-batch's result: its batch loss and gradients, as float32 values in checkpoint order. */
export type MicroBatchResult = {index: number; loss: number; grads: Float32Array[]}

/** Worker -> main: started (backend ready), a step's results, or why it failed. */
export type GradientReply = {type: 'ready'} | {type: 'done'; results: MicroBatchResult[]} | {type: 'failed'; message: string}
