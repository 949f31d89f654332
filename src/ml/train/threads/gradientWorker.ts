/**
 * The entry of a gradient worker thread (started by createGradientPool): it activates the main thread's tfjs
 * backend in this thread, then per request rebuilds the weights it was sent and computes each micro-batch's
 * loss and gradients with the very function the main thread uses on one thread (microBatchGradients), so the
 * bits are the same. Nothing here sums: the main thread adds every micro-batch's gradient in index order.
 */
import * as tf from '@tensorflow/tfjs'
import {parentPort, workerData} from 'node:worker_threads'

import {selectBackend} from '../../backend/selectBackend.js'
import {modelWeights} from '../../model/initialWeights.js'
import {GradientWorkerError} from '../errors.js'
import {microBatchGradients, modelOutputShape} from '../microBatches.js'
import type {GradientReply, GradientRequest, GradientWorkerData, MicroBatchResult} from './gradientProtocol.js'

const port = parentPort
if (port === null) throw new GradientWorkerError('gradientWorker.ts runs only as a worker thread (createGradientPool starts it)')
const {spec, backend, wasmVariant} = workerData as GradientWorkerData
const shapes = modelWeights(spec.model).map((w) => w.shape)
const outputShape = modelOutputShape(spec)

const reply = (message: GradientReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)

/** A float32 copy that owns its whole buffer, so transferring it moves no other tensor's memory. */
function owned(values: tf.TypedArray): Float32Array {
  return values instanceof Float32Array && values.byteOffset === 0 && values.byteLength === values.buffer.byteLength ? values : new Float32Array(values)
}

function compute({step, weights, microBatches}: GradientRequest): MicroBatchResult[] {
  const params = weights.map((values, i) => tf.tensor(values, shapes[i], 'float32'))
  try {
    return microBatches.map((micro) => {
      const [loss, ...grads] = tf.tidy(() => {
        const result = microBatchGradients(spec, params, micro, step, outputShape)
        return [result.loss, ...result.grads]
      }) as [tf.Scalar, ...tf.Tensor[]]
      try {
        return {index: micro.index, loss: loss.dataSync()[0] as number, grads: grads.map((g) => owned(g.dataSync()))}
      } finally {
        tf.dispose([loss, ...grads])
      }
    })
  } finally {
    tf.dispose(params)
  }
}

try {
  await selectBackend(backend, wasmVariant === undefined ? {} : {wasmVariant})
  port.on('message', (request: GradientRequest) => {
    try {
      const results = compute(request)
      reply({type: 'done', results}, results.flatMap((r) => r.grads.map((g) => g.buffer as ArrayBuffer)))
    } catch (error) {
      reply({type: 'failed', message: error instanceof Error ? error.message.split('\n')[0] ?? String(error) : String(error)})
    }
  })
  reply({type: 'ready'})
} catch (error) {
  reply({type: 'failed', message: error instanceof Error ? error.message.split('\n')[0] ?? String(error) : String(error)})
}
