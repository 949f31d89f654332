import type {LayerSpec, ModelSpec} from '../../src/ml/spec/index.js'

const anyLayer = (layers: readonly LayerSpec[], test: (layer: LayerSpec) => boolean): boolean =>
  layers.some((layer) => test(layer) || (layer.type === 'residual' && anyLayer(layer.layers, test)))

/**
 * The speed gensyn should reach against PyTorch's best (issue 20): at least 1.5x on a convolution or attention
 * model (PyTorch is bound by its per-op overhead at these sizes), at least 0.8x on a dense-only one (matmul-bound).
 */
export function peerTarget(model: ModelSpec): {ratio: number; kind: 'cnn' | 'transformer' | 'mlp'} {
  if (anyLayer(model.layers, (layer) => layer.type === 'multiHeadAttention')) return {ratio: 1.5, kind: 'transformer'}
  if (anyLayer(model.layers, (layer) => layer.type === 'conv2d')) return {ratio: 1.5, kind: 'cnn'}
  return {ratio: 0.8, kind: 'mlp'}
}
