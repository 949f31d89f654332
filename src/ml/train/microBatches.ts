import * as tf from '@tensorflow/tfjs'

import {forward, type ForwardMode} from '../model/forward.js'
import {analyzed} from '../model/initialWeights.js'
import {type JobSpec, lossOf} from '../spec/schema.js'
import {lossTensor} from './lossTensor.js'

/** One micro-batch of a step: rows [index * rows, (index + 1) * rows) of the step's batch (features and targets). */
export type MicroBatch = {index: number; x: Float32Array; y: Float32Array}

/** A micro-batch's batch loss and its gradient per parameter (checkpoint order). */
export type MicroBatchGradients = {loss: tf.Scalar; grads: tf.Tensor[]}

/** `training.microBatches`: the number of micro-batches a step's batch is split into (1 when absent). */
export function microBatchCount(spec: Pick<JobSpec, 'training'>): number {
  return spec.training.microBatches ?? 1
}

/**
 * A step's batch cut into the job's micro-batches, in index order. With one micro-batch it is the batch itself;
 * otherwise each part is a copy that owns its buffer, so it can be transferred to a worker thread.
 */
export function splitBatch(spec: Pick<JobSpec, 'training'>, batch: {x: Float32Array; y: Float32Array}): MicroBatch[] {
  const count = microBatchCount(spec)
  if (count === 1) return [{index: 0, x: batch.x, y: batch.y}]
  const xSize = batch.x.length / count
  const ySize = batch.y.length / count
  return Array.from({length: count}, (_, index) => ({
    index,
    x: batch.x.slice(index * xSize, (index + 1) * xSize),
    y: batch.y.slice(index * ySize, (index + 1) * ySize),
  }))
}

/**
 * The batch loss and gradients of one micro-batch at training step `step` (call inside tf.tidy): the forward
 * pass, the loss (a mean over the micro-batch's samples) and tfjs's gradients. The same function runs on the
 * main thread (one thread) and in the worker threads, so both compute the same bits. With one micro-batch
 * this is the whole step's forward and backward pass, op for op as before micro-batches existed.
 */
export function microBatchGradients(spec: JobSpec, params: readonly tf.Tensor[], micro: MicroBatch, step: number, outputShape = modelOutputShape(spec)): MicroBatchGradients {
  const {seed, batchSize} = spec.training
  const rows = batchSize / microBatchCount(spec)
  const x = tf.tensor(micro.x, [rows, ...spec.model.inputShape], 'float32')
  const y = tf.tensor(micro.y, [rows, ...outputShape], 'float32')
  const loss = lossOf(spec)
  // the first micro-batch keeps the mode training always had, so a one-micro-batch step is unchanged
  const mode: ForwardMode = micro.index === 0 ? {training: true, seed, step} : {training: true, seed, step, firstRow: micro.index * rows}
  const lossOfParams = (...weights: tf.Tensor[]) => lossTensor(loss, y, forward(spec, weights, x, mode)) as tf.Scalar
  const {value, grads} = tf.valueAndGrads(lossOfParams)(params as tf.Tensor[])
  return {loss: value, grads}
}

/** The model's output per sample ([classes], [outputs], or a language model's [context, vocabulary]). */
export function modelOutputShape(spec: Pick<JobSpec, 'model'>): number[] {
  return analyzed(spec.model).layers.at(-1)!.outputShape
}

/**
 * The step's loss and gradients from its micro-batches' (call inside tf.tidy): added in index order, whatever
 * thread computed each, then divided by their count, so the step averages over the whole batch as a single
 * batch would (up to float32 rounding) and the learning rate means the same for any count. One micro-batch
 * is returned as it is.
 */
export function averageInIndexOrder(parts: readonly MicroBatchGradients[]): MicroBatchGradients {
  const [first, ...rest] = parts
  if (first === undefined) throw new RangeError('averageInIndexOrder: expected at least one micro-batch')
  if (rest.length === 0) return first
  let loss: tf.Tensor = first.loss
  let grads: tf.Tensor[] = first.grads
  for (const part of rest) {
    loss = tf.add(loss, part.loss)
    grads = grads.map((g, i) => tf.add(g, part.grads[i] as tf.Tensor))
  }
  const count = tf.scalar(parts.length, 'float32')
  return {loss: tf.div(loss, count) as tf.Scalar, grads: grads.map((g) => tf.div(g, count))}
}
