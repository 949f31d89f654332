import type {LayerSpec, ModelSpec} from '../spec/modelSchema.js'

export type WeightInfo = {
  /** Canonical weight name, e.g. `0/dense/kernel` or `2/residual/1/multiHeadAttention/query/kernel`. */
  name: string
  shape: number[]
  /**
   * `kernel` weights (and embedding tables) get glorot-uniform values, `bias` weights zeros, `gamma` weights
   * (layer normalisation's scale) ones (docs/checkpoint-format.md).
   */
  role: 'kernel' | 'bias' | 'gamma'
  fanIn: number
  fanOut: number
}

export type LayerInfo = {
  /** The layer's index in model.layers (a residual block's inner layers carry their block's index). */
  index: number
  /** Where the layer sits: `3` for model.layers[3], `3/residual/1` for the second layer of that block. */
  path: string
  layer: LayerSpec
  inputShape: number[]
  outputShape: number[]
  weights: WeightInfo[]
  /** Multiply-adds of the forward pass for one sample (a work estimate, not a timing). */
  forwardMacs: number
  /** A residual block's inner layers (analysed), in order. */
  inner?: LayerInfo[]
}

export type ModelAnalysis =
  | {ok: true; layers: LayerInfo[]; weights: WeightInfo[]; parameterCount: number; forwardMacs: number}
  | {ok: false; path: (string | number)[]; message: string}

/** Normalises a `number | [h, w]` size to `[h, w]`. */
export function pair(value: number | readonly [number, number]): [number, number] {
  return typeof value === 'number' ? [value, value] : [value[0], value[1]]
}

function outSize(input: number, window: number, stride: number, padding: 'valid' | 'same'): number {
  return padding === 'same' ? Math.ceil(input / stride) : Math.ceil((input - window + 1) / stride)
}

const product = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1)
const show = (shape: readonly number[]) => `[${shape.join(', ')}]`

type Failure = {ok: false; path: (string | number)[]; message: string}
type Step = {outputShape: number[]; weights: WeightInfo[]; forwardMacs: number; inner?: LayerInfo[]} | Failure

const weight = (name: string, shape: number[], role: WeightInfo['role'], fanIn: number, fanOut: number): WeightInfo => ({name, shape, role, fanIn, fanOut})

/** One layer's output shape, weights and work, or why it does not fit its input. */
function analyzeLayer(layer: LayerSpec, shape: number[], prefix: string, path: (string | number)[], index: number): Step {
  const fail = (message: string, key?: string): Failure => ({ok: false, path: key === undefined ? path : [...path, key], message})
  const name = `${prefix}/${layer.type}`
  const width = shape[shape.length - 1] as number
  switch (layer.type) {
    case 'dense': {
      // over the last axis: a flat input, or every position of a [sequence, features] one
      if (shape.length !== 1 && shape.length !== 2) return fail(`expected a flat or [sequence, features] input for dense, got ${show(shape)} (add a flatten layer before it)`, 'type')
      const positions = shape.length === 2 ? (shape[0] as number) : 1
      return {
        outputShape: [...shape.slice(0, -1), layer.units],
        weights: [weight(`${name}/kernel`, [width, layer.units], 'kernel', width, layer.units), weight(`${name}/bias`, [layer.units], 'bias', width, layer.units)],
        forwardMacs: positions * width * layer.units,
      }
    }
    case 'conv2d':
    case 'maxPooling2d':
    case 'avgPooling2d': {
      const [h, w, c] = shape
      if (shape.length !== 3 || h === undefined || w === undefined || c === undefined)
        return fail(`expected a [height, width, channels] input for ${layer.type}, got ${show(shape)}`, 'type')
      const [kh, kw] = pair(layer.type === 'conv2d' ? layer.kernelSize : layer.poolSize)
      const [sh, sw] = pair(layer.strides ?? (layer.type === 'conv2d' ? 1 : layer.poolSize))
      const oh = outSize(h, kh, sh, layer.padding)
      const ow = outSize(w, kw, sw, layer.padding)
      if (oh < 1 || ow < 1) return fail(`expected a window no larger than the input ${show(shape)}, got ${show([kh, kw])}`, layer.type === 'conv2d' ? 'kernelSize' : 'poolSize')
      if (layer.type !== 'conv2d') return {outputShape: [oh, ow, c], weights: [], forwardMacs: oh * ow * c * kh * kw}
      const f = layer.filters
      return {
        outputShape: [oh, ow, f],
        weights: [weight(`${name}/kernel`, [kh, kw, c, f], 'kernel', kh * kw * c, kh * kw * f), weight(`${name}/bias`, [f], 'bias', kh * kw * c, kh * kw * f)],
        forwardMacs: oh * ow * f * kh * kw * c,
      }
    }
    case 'flatten':
      return {outputShape: [product(shape)], weights: [], forwardMacs: 0}
    case 'globalAveragePooling':
      if (shape.length !== 2 && shape.length !== 3) return fail(`expected a [height, width, channels] or [sequence, features] input for globalAveragePooling, got ${show(shape)}`, 'type')
      return {outputShape: [width], weights: [], forwardMacs: product(shape)}
    case 'dropout':
      return {outputShape: shape, weights: [], forwardMacs: 0}
    case 'embedding':
      if (shape.length !== 1) return fail(`expected token ids [sequence] for embedding, got ${show(shape)}`, 'type')
      return {outputShape: [width, layer.units], weights: [weight(`${name}/embeddings`, [layer.vocabulary, layer.units], 'kernel', layer.vocabulary, layer.units)], forwardMacs: 0}
    case 'positionalEmbedding':
    case 'layerNormalization': {
      if (shape.length !== 2) return fail(`expected a [sequence, features] input for ${layer.type}, got ${show(shape)}`, 'type')
      const [sequence] = shape as [number, number]
      if (layer.type === 'positionalEmbedding') return {outputShape: shape, weights: [weight(`${name}/embeddings`, [sequence, width], 'kernel', sequence, width)], forwardMacs: sequence * width}
      return {outputShape: shape, weights: [weight(`${name}/gamma`, [width], 'gamma', width, width), weight(`${name}/beta`, [width], 'bias', width, width)], forwardMacs: 4 * sequence * width}
    }
    case 'multiHeadAttention': {
      if (shape.length !== 2) return fail(`expected a [sequence, features] input for multiHeadAttention, got ${show(shape)}`, 'type')
      if (width % layer.heads !== 0) return fail(`expected heads to divide the input width ${width}, got ${layer.heads}`, 'heads')
      const sequence = shape[0] as number
      const weights = ['query', 'key', 'value', 'output'].flatMap((part) => [
        weight(`${name}/${part}/kernel`, [width, width], 'kernel', width, width),
        weight(`${name}/${part}/bias`, [width], 'bias', width, width),
      ])
      return {outputShape: shape, weights, forwardMacs: 4 * sequence * width * width + 2 * sequence * sequence * width}
    }
    case 'residual': {
      const inner = analyzeLayers(layer.layers, shape, `${prefix}/residual`, [...path, 'layers'], index)
      if (!Array.isArray(inner)) return inner
      const last = inner[inner.length - 1]
      if (last && last.outputShape.join(',') !== shape.join(',')) return fail(`expected the block to keep its input shape ${show(shape)}, got ${show(last.outputShape)}`, 'layers')
      return {outputShape: shape, weights: inner.flatMap((l) => l.weights), forwardMacs: inner.reduce((n, l) => n + l.forwardMacs, 0), inner}
    }
  }
}

function analyzeLayers(layers: readonly LayerSpec[], inputShape: number[], prefix: string, path: (string | number)[], topIndex?: number): LayerInfo[] | Failure {
  let shape = inputShape
  const out: LayerInfo[] = []
  for (const [i, layer] of layers.entries()) {
    if (topIndex !== undefined && layer.type === 'dropout') return {ok: false, path: [...path, i, 'type'], message: 'expected no dropout inside a residual block (put it outside)'}
    const index = topIndex ?? i
    const layerPrefix = prefix === '' ? String(i) : `${prefix}/${i}`
    const step = analyzeLayer(layer, shape, layerPrefix, [...path, i], index)
    if ('ok' in step) return step
    out.push({index, path: layerPrefix, layer, inputShape: shape, ...step})
    shape = step.outputShape
  }
  return out
}

/**
 * Walks the layers of a model spec and infers every layer's input/output shape and weight shapes
 * (Keras/tfjs shape rules, batch axis left out). Used for spec validation, weight initialisation and the
 * work estimate. Returns the first problem instead of throwing, with its path inside `model`.
 */
export function analyzeModel(model: ModelSpec): ModelAnalysis {
  const layers = analyzeLayers(model.layers, [...model.inputShape], '', ['layers'])
  if (!Array.isArray(layers)) return layers
  const last = model.layers[model.layers.length - 1]
  const lastIndex = model.layers.length - 1
  if (last === undefined) return {ok: false, path: ['layers'], message: 'expected at least one layer'}
  if (last.type !== 'dense')
    return {ok: false, path: ['layers', lastIndex, 'type'], message: `expected the last layer to be dense, got "${last.type}"`}
  if (last.activation !== 'softmax' && last.activation !== 'linear')
    return {
      ok: false,
      path: ['layers', lastIndex, 'activation'],
      message: `expected softmax or linear (logits, or a regression's values) in the last layer, got "${last.activation}"`,
    }
  const weights = layers.flatMap((l) => l.weights)
  return {
    ok: true,
    layers,
    weights,
    parameterCount: weights.reduce((n, w) => n + product(w.shape), 0),
    forwardMacs: layers.reduce((n, l) => n + l.forwardMacs, 0),
  }
}
