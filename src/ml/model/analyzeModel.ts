import type {LayerSpec, ModelSpec} from '../spec/schema.js'

export type WeightInfo = {
  /** Canonical weight name, e.g. `0/dense/kernel` (layer index / layer type / role). */
  name: string
  shape: number[]
  /** `kernel` weights get glorot-uniform values, `bias` weights zeros (docs/checkpoint-format.md). */
  role: 'kernel' | 'bias'
  fanIn: number
  fanOut: number
}

export type LayerInfo = {
  index: number
  layer: LayerSpec
  inputShape: number[]
  outputShape: number[]
  weights: WeightInfo[]
  /** Multiply-adds of the forward pass for one sample (a work estimate, not a timing). */
  forwardMacs: number
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

/**
 * Walks the layers of a model spec and infers every layer's input/output shape and weight shapes
 * (Keras/tfjs shape rules, batch axis left out). Used for spec validation, weight initialisation and the
 * work estimate. Returns the first problem instead of throwing, with its path inside `model`.
 */
export function analyzeModel(model: ModelSpec): ModelAnalysis {
  let shape = [...model.inputShape]
  const layers: LayerInfo[] = []
  for (const [index, layer] of model.layers.entries()) {
    const inputShape = shape
    const weights: WeightInfo[] = []
    let forwardMacs = 0
    const fail = (message: string, key?: string) => ({
      ok: false as const,
      path: key === undefined ? ['layers', index] : ['layers', index, key],
      message,
    })
    switch (layer.type) {
      case 'dense': {
        const [inUnits] = shape
        if (shape.length !== 1 || inUnits === undefined)
          return fail(`expected a flat input for dense, got ${show(shape)} (add a flatten layer before it)`, 'type')
        weights.push(
          {name: `${index}/dense/kernel`, shape: [inUnits, layer.units], role: 'kernel', fanIn: inUnits, fanOut: layer.units},
          {name: `${index}/dense/bias`, shape: [layer.units], role: 'bias', fanIn: inUnits, fanOut: layer.units},
        )
        forwardMacs = inUnits * layer.units
        shape = [layer.units]
        break
      }
      case 'conv2d':
      case 'maxPooling2d': {
        const [h, w, c] = shape
        if (shape.length !== 3 || h === undefined || w === undefined || c === undefined)
          return fail(`expected a [height, width, channels] input for ${layer.type}, got ${show(shape)}`, 'type')
        const [kh, kw] = pair(layer.type === 'conv2d' ? layer.kernelSize : layer.poolSize)
        const [sh, sw] = pair(layer.strides ?? (layer.type === 'maxPooling2d' ? layer.poolSize : 1))
        const oh = outSize(h, kh, sh, layer.padding)
        const ow = outSize(w, kw, sw, layer.padding)
        const sizeKey = layer.type === 'conv2d' ? 'kernelSize' : 'poolSize'
        if (oh < 1 || ow < 1)
          return fail(`expected a window no larger than the input ${show(shape)}, got ${show([kh, kw])}`, sizeKey)
        if (layer.type === 'conv2d') {
          const f = layer.filters
          weights.push(
            {name: `${index}/conv2d/kernel`, shape: [kh, kw, c, f], role: 'kernel', fanIn: kh * kw * c, fanOut: kh * kw * f},
            {name: `${index}/conv2d/bias`, shape: [f], role: 'bias', fanIn: kh * kw * c, fanOut: kh * kw * f},
          )
          forwardMacs = oh * ow * f * kh * kw * c
          shape = [oh, ow, f]
        } else {
          forwardMacs = oh * ow * c * kh * kw
          shape = [oh, ow, c]
        }
        break
      }
      case 'flatten':
        shape = [product(shape)]
        break
      case 'dropout':
        break
    }
    layers.push({index, layer, inputShape, outputShape: shape, weights, forwardMacs})
  }
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
