import * as tf from '@tensorflow/tfjs'

import type {JobSpec} from '../spec/schema.js'
import {learningRateAt} from './learningRate.js'

/** The state an update reads and writes: weights, optimizer moments (empty when unused) and adam's running products. */
export type OptimizerState = {params: tf.Tensor[]; m: tf.Tensor[]; v: tf.Tensor[]; beta1Power: number; beta2Power: number}

/**
 * The optimizer's update of step `step` with the step's (clipped) gradients `grads` (call inside tf.tidy):
 * sgd, heavy-ball momentum, adam or adamw, exactly as docs/checkpoint-format.md ("Training step") states.
 * Returns the new state; the caller disposes the old tensors.
 */
export function optimizerUpdate(spec: JobSpec, step: number, state: OptimizerState, grads: readonly tf.Tensor[]): OptimizerState {
  const {optimizer} = spec.training
  const learningRate = learningRateAt(spec, step)
  const {params, beta1Power, beta2Power} = state
  if (optimizer.type === 'sgd') {
    const lr = tf.scalar(learningRate, 'float32')
    if (optimizer.momentum === undefined) return {...state, params: params.map((w, i) => tf.sub(w, tf.mul(grads[i] as tf.Tensor, lr)))}
    // heavy ball: m <- m * mu + g, w <- w - m * lr
    const mu = tf.scalar(Math.fround(optimizer.momentum), 'float32')
    const m = state.m.map((mi, i) => tf.add(tf.mul(mi, mu), grads[i] as tf.Tensor))
    return {...state, params: params.map((w, i) => tf.sub(w, tf.mul(m[i] as tf.Tensor, lr))), m}
  }
  // adam's scalar schedule in float32 arithmetic (Math.fround after every operation, which equals
  // IEEE float32 arithmetic for + - * / sqrt): bias correction from running products, never pow()
  const nextBeta1Power = Math.fround(beta1Power * Math.fround(optimizer.beta1))
  const nextBeta2Power = Math.fround(beta2Power * Math.fround(optimizer.beta2))
  const correction = Math.fround(Math.sqrt(Math.fround(1 - nextBeta2Power)))
  const alpha = Math.fround(Math.fround(learningRate * correction) / Math.fround(1 - nextBeta1Power))
  const b1 = tf.scalar(Math.fround(optimizer.beta1), 'float32')
  const b2 = tf.scalar(Math.fround(optimizer.beta2), 'float32')
  const oneMinusB1 = tf.scalar(Math.fround(1 - Math.fround(optimizer.beta1)), 'float32')
  const oneMinusB2 = tf.scalar(Math.fround(1 - Math.fround(optimizer.beta2)), 'float32')
  const eps = tf.scalar(Math.fround(optimizer.epsilon), 'float32')
  const a = tf.scalar(alpha, 'float32')
  const m = state.m.map((mi, i) => tf.add(tf.mul(mi, b1), tf.mul(grads[i] as tf.Tensor, oneMinusB1)))
  const v = state.v.map((vi, i) => tf.add(tf.mul(vi, b2), tf.mul(tf.square(grads[i] as tf.Tensor), oneMinusB2)))
  // adamw: the decay is decoupled from the moments, w - w * (lr * weightDecay) - the adam update
  const decay = optimizer.type === 'adamw' ? tf.scalar(Math.fround(learningRate * Math.fround(optimizer.weightDecay)), 'float32') : undefined
  const nextParams = params.map((w, i) => {
    const update = tf.div(tf.mul(m[i] as tf.Tensor, a), tf.add(tf.sqrt(v[i] as tf.Tensor), eps))
    return tf.sub(decay ? tf.sub(w, tf.mul(w, decay)) : w, update)
  })
  return {params: nextParams, m, v, beta1Power: nextBeta1Power, beta2Power: nextBeta2Power}
}
