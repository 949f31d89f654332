import * as tf from '@tensorflow/tfjs'
import type {JobSpec, LayerSpec} from '../spec/schema.js'
import {pair} from './analyzeModel.js'
import {dropoutMask} from './dropoutMask.js'

export type ForwardMode = {training: false} | {training: true; seed: number; step: number}

type Activation = Extract<LayerSpec, {type: 'dense'}>['activation']

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
    case 'linear':
      return x
  }
}

/**
 * The model's forward pass as explicit tfjs ops over `params` (the weights in checkpoint order). Returns
 * the last layer's logits: its softmax (if any) is left to the loss (softmax cross-entropy) or to
 * `predict`. The op sequence per layer:
 *
 * - dense: fused matMul(x, kernel) + bias with relu fused when the activation is relu, then
 *   sigmoid/tanh/softmax as a separate op;
 * - conv2d: fused conv2d(x, kernel, strides, padding, NHWC) + bias (relu fused), then the activation;
 * - maxPooling2d: maxPool(x, poolSize, strides, padding);
 * - flatten: reshape to [batch, -1];
 * - dropout: identity at inference; in training x * mask with the seeded mask of {@link dropoutMask}.
 */
export function forward(spec: JobSpec, params: readonly tf.Tensor[], x: tf.Tensor, mode: ForwardMode): tf.Tensor {
  let h = x
  let p = 0
  const next = () => {
    const t = params[p++]
    if (!t) throw new RangeError(`forward: expected more weights than ${params.length}`)
    return t
  }
  const last = spec.model.layers.length - 1
  for (const [index, layer] of spec.model.layers.entries()) {
    switch (layer.type) {
      case 'dense':
      case 'conv2d': {
        const kernel = next()
        const bias = next()
        const act = index === last && layer.activation === 'softmax' ? 'linear' : layer.activation
        const fused = act === 'relu' ? 'relu' : 'linear'
        if (layer.type === 'dense') {
          h = tf.fused.matMul({a: h as tf.Tensor2D, b: kernel as tf.Tensor2D, bias, activation: fused})
        } else {
          h = tf.fused.conv2d({
            x: h as tf.Tensor4D,
            filter: kernel as tf.Tensor4D,
            strides: pair(layer.strides),
            pad: layer.padding,
            dataFormat: 'NHWC',
            bias,
            activation: fused,
          })
        }
        if (act !== 'relu' && act !== 'linear') h = activate(h, act)
        break
      }
      case 'maxPooling2d':
        h = tf.maxPool(h as tf.Tensor4D, pair(layer.poolSize), pair(layer.strides ?? layer.poolSize), layer.padding)
        break
      case 'flatten':
        h = tf.reshape(h, [h.shape[0] ?? -1, -1])
        break
      case 'dropout':
        if (mode.training && layer.rate > 0) {
          const mask = dropoutMask({seed: mode.seed, step: mode.step, layer: index, size: h.size, rate: layer.rate})
          h = tf.mul(h, tf.tensor(mask, h.shape, 'float32'))
        }
        break
    }
  }
  if (p !== params.length) throw new RangeError(`forward: expected ${p} weights, got ${params.length}`)
  return h
}

/** Class probabilities: softmax of the logits when the last layer's activation is softmax, else the logits. */
export function outputsFromLogits(spec: JobSpec, logits: tf.Tensor): tf.Tensor {
  const lastLayer = spec.model.layers[spec.model.layers.length - 1]
  return lastLayer?.type === 'dense' && lastLayer.activation === 'softmax' ? tf.softmax(logits) : logits
}
