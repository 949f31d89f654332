import * as tf from '@tensorflow/tfjs'

import type {JobSpec, LayerSpec} from '../spec/schema.js'
import {pair} from './analyzeModel.js'
import {dropoutMask} from './dropoutMask.js'

export type ForwardMode =
  | {training: false}
  | {
      training: true
      seed: number
      step: number
      /** A micro-batch: x holds rows [firstRow, firstRow + x.shape[0]) of the step's batch, so dropout uses those rows of the batch's masks. */
      firstRow?: number | undefined
    }

type Activation = Extract<LayerSpec, {type: 'dense'}>['activation']

/** GELU, exact: x * (1 + erf(x / sqrt(2))) / 2. */
function gelu(x: tf.Tensor): tf.Tensor {
  return tf.mul(tf.mul(x, tf.scalar(0.5)), tf.add(tf.scalar(1), tf.erf(tf.mul(x, tf.scalar(Math.fround(Math.SQRT1_2))))))
}

function activate(x: tf.Tensor, activation: Activation): tf.Tensor {
  switch (activation) {
    case 'relu':
      return tf.relu(x)
    case 'sigmoid':
      return tf.sigmoid(x)
    case 'tanh':
      return tf.tanh(x)
    case 'softmax':
      return tf.softmax(x)
    case 'gelu':
      return gelu(x)
    case 'linear':
      return x
  }
}

/** x [..., in] times kernel [in, out] plus bias over the last axis (relu fused when asked): a flat view for rank > 2. */
function linear(x: tf.Tensor, kernel: tf.Tensor, bias: tf.Tensor, activation: 'relu' | 'linear' = 'linear'): tf.Tensor {
  if (x.rank === 2) return tf.fused.matMul({a: x as tf.Tensor2D, b: kernel as tf.Tensor2D, bias, activation})
  const [units] = kernel.shape.slice(-1) as [number]
  const flat = tf.reshape(x, [-1, x.shape[x.rank - 1] as number]) as tf.Tensor2D
  return tf.reshape(tf.fused.matMul({a: flat, b: kernel as tf.Tensor2D, bias, activation}), [...x.shape.slice(0, -1), units])
}

/** Layer normalisation over the last axis: (x - mean) * rsqrt(var + eps) * gamma + beta. */
function layerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor, epsilon: number): tf.Tensor {
  const mean = tf.mean(x, -1, true)
  const centered = tf.sub(x, mean)
  const variance = tf.mean(tf.square(centered), -1, true)
  return tf.add(tf.mul(tf.mul(centered, tf.rsqrt(tf.add(variance, tf.scalar(Math.fround(epsilon))))), gamma), beta)
}

/** Multi-head self-attention over x [B, T, d] with the layer's 8 weights (query, key, value, output: kernel, bias). */
function attention(x: tf.Tensor, weights: tf.Tensor[], heads: number, causal: boolean): tf.Tensor {
  const [batch, sequence, width] = x.shape as [number, number, number]
  const size = width / heads
  const split = (t: tf.Tensor) => tf.transpose(tf.reshape(t, [batch, sequence, heads, size]), [0, 2, 1, 3])
  const [wq, bq, wk, bk, wv, bv, wo, bo] = weights as [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]
  const q = split(linear(x, wq, bq))
  const k = split(linear(x, wk, bk))
  const v = split(linear(x, wv, bv))
  let scores = tf.mul(tf.matMul(q, k, false, true), tf.scalar(Math.fround(1 / Math.sqrt(size))))
  // a position sees itself and the ones before it: -1e9 on the rest, before the softmax
  if (causal) scores = tf.add(scores, tf.tensor2d(causalMask(sequence), [sequence, sequence]))
  const context = tf.matMul(tf.softmax(scores), v)
  return linear(tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [batch, sequence, width]), wo, bo)
}

const masks = new Map<number, Float32Array>()
function causalMask(sequence: number): Float32Array {
  let mask = masks.get(sequence)
  if (!mask) {
    mask = new Float32Array(sequence * sequence)
    for (let i = 0; i < sequence; i++) for (let j = i + 1; j < sequence; j++) mask[i * sequence + j] = -1e9
    masks.set(sequence, mask)
  }
  return mask
}

type Cursor = {next(): tf.Tensor; take(n: number): tf.Tensor[]}

function applyLayers(layers: readonly LayerSpec[], x: tf.Tensor, params: Cursor, mode: ForwardMode, lastSoftmaxIsLoss: boolean, topIndex?: number): tf.Tensor {
  let h = x
  const last = layers.length - 1
  for (const [i, layer] of layers.entries()) {
    const index = topIndex ?? i
    switch (layer.type) {
      case 'dense':
      case 'conv2d': {
        const kernel = params.next()
        const bias = params.next()
        const act = lastSoftmaxIsLoss && i === last && layer.activation === 'softmax' ? 'linear' : layer.activation
        const fused = act === 'relu' ? 'relu' : 'linear'
        if (layer.type === 'dense') h = linear(h, kernel, bias, fused)
        else h = tf.fused.conv2d({x: h as tf.Tensor4D, filter: kernel as tf.Tensor4D, strides: pair(layer.strides), pad: layer.padding, dataFormat: 'NHWC', bias, activation: fused})
        if (act !== 'relu' && act !== 'linear') h = activate(h, act)
        break
      }
      case 'maxPooling2d':
        h = tf.maxPool(h as tf.Tensor4D, pair(layer.poolSize), pair(layer.strides ?? layer.poolSize), layer.padding)
        break
      case 'avgPooling2d':
        h = tf.avgPool(h as tf.Tensor4D, pair(layer.poolSize), pair(layer.strides ?? layer.poolSize), layer.padding)
        break
      case 'globalAveragePooling':
        h = tf.mean(h, h.rank === 4 ? [1, 2] : [1])
        break
      case 'flatten':
        h = tf.reshape(h, [h.shape[0] ?? -1, -1])
        break
      case 'dropout':
        if (mode.training && layer.rate > 0) {
          const skip = ((mode.firstRow ?? 0) * h.size) / (h.shape[0] as number)
          const mask = dropoutMask({seed: mode.seed, step: mode.step, layer: index, size: h.size, rate: layer.rate, skip})
          h = tf.mul(h, tf.tensor(mask, h.shape, 'float32'))
        }
        break
      case 'embedding': {
        // one-hot rows times the table, not gather: gather's gradient (UnsortedSegmentSum) has no wasm kernel
        const table = params.next()
        const [vocabulary, units] = table.shape as [number, number]
        const ids = tf.reshape(tf.cast(h, 'int32'), [-1])
        h = tf.reshape(tf.matMul(tf.oneHot(ids, vocabulary), table), [...h.shape, units])
        break
      }
      case 'positionalEmbedding':
        h = tf.add(h, params.next())
        break
      case 'layerNormalization': {
        const [gamma, beta] = params.take(2) as [tf.Tensor, tf.Tensor]
        h = layerNorm(h, gamma, beta, layer.epsilon)
        break
      }
      case 'multiHeadAttention':
        h = attention(h, params.take(8), layer.heads, layer.causal)
        break
      case 'residual':
        h = tf.add(h, applyLayers(layer.layers, h, params, mode, false, index))
        break
    }
  }
  return h
}

/**
 * The model's forward pass as explicit tfjs ops over `params` (the weights in checkpoint order). Returns
 * the last layer's logits: its softmax (if any) is left to the loss (softmax cross-entropy) or to
 * `predict`. The op sequence per layer (docs/checkpoint-format.md, "Forward"):
 *
 * - dense: fused matMul(x, kernel) + bias with relu fused when the activation is relu, then
 *   sigmoid/tanh/softmax/gelu as separate ops; over a [sequence, features] input, on its flat [B·T, features] view;
 * - conv2d: fused conv2d(x, kernel, strides, padding, NHWC) + bias (relu fused), then the activation;
 * - maxPooling2d / avgPooling2d: maxPool / avgPool(x, poolSize, strides, padding); globalAveragePooling:
 *   mean over the positions; flatten: reshape to [batch, -1];
 * - dropout: identity at inference; in training x * mask with the seeded mask of {@link dropoutMask};
 * - embedding: matMul(oneHot(int32 ids), table); positionalEmbedding: x + table;
 * - layerNormalization: (x - mean) * rsqrt(variance + epsilon) * gamma + beta over the last axis;
 * - multiHeadAttention: q, k, v projections, softmax(q k^T / sqrt(d_head) + causal mask) v per head, output projection;
 * - residual: x + block(x).
 */
export function forward(spec: JobSpec, params: readonly tf.Tensor[], x: tf.Tensor, mode: ForwardMode): tf.Tensor {
  let p = 0
  const next = () => {
    const t = params[p++]
    if (!t) throw new RangeError(`forward: expected more weights than ${params.length}`)
    return t
  }
  const cursor: Cursor = {next, take: (n) => Array.from({length: n}, next)}
  const h = applyLayers(spec.model.layers, x, cursor, mode, true)
  if (p !== params.length) throw new RangeError(`forward: expected ${p} weights, got ${params.length}`)
  return h
}

/** Class probabilities: softmax of the logits when the last layer's activation is softmax, else the logits. */
export function outputsFromLogits(spec: JobSpec, logits: tf.Tensor): tf.Tensor {
  const lastLayer = spec.model.layers[spec.model.layers.length - 1]
  return lastLayer?.type === 'dense' && lastLayer.activation === 'softmax' ? tf.softmax(logits) : logits
}
