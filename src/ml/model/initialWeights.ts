import {BaseError} from '../../errors/base.js'
import {prngStream} from '../prng/prngStream.js'
import type {JobSpec, ModelSpec} from '../spec/schema.js'
import {analyzeModel, type ModelAnalysis, type WeightInfo} from './analyzeModel.js'

export class ModelSpecError extends BaseError {
  override name = 'ModelSpecError'
}

/** The weight list of a model spec (names, shapes, fans), in checkpoint order. Throws on an invalid model. */
export function modelWeights(model: ModelSpec): WeightInfo[] {
  return analyzed(model).weights
}

export function analyzed(model: ModelSpec): Extract<ModelAnalysis, {ok: true}> {
  const analysis = analyzeModel(model)
  if (!analysis.ok) throw new ModelSpecError(`model.${analysis.path.join('.')}: ${analysis.message}`)
  return analysis
}

/**
 * The seed-derived initial weights of a job, in checkpoint order (layer by layer, kernel then bias),
 * computed from gensyn's own PRNG so they do not depend on the backend:
 *
 * - kernels: glorot-uniform. For the weight named N (e.g. `0/dense/kernel`) the stream labelled
 *   `gensyn/init/v1 seed=<training.seed> weight=<N>` gives one unit u in [0, 1) per element (row-major
 *   order), and the element is fround((2u - 1) * sqrt(6 / (fanIn + fanOut))) with double arithmetic
 *   (dense: fanIn = inputs, fanOut = units; conv2d: fanIn = kh*kw*inChannels, fanOut = kh*kw*filters).
 * - biases (and layer normalisation's beta): zeros; layer normalisation's gamma: ones.
 * - embedding tables are kernels: fanIn = vocabulary (or sequence length), fanOut = units.
 */
export function initialWeights(spec: JobSpec): Float32Array[] {
  return modelWeights(spec.model).map((weight) => {
    const size = weight.shape.reduce((a, b) => a * b, 1)
    const values = new Float32Array(size)
    if (weight.role === 'bias') return values
    if (weight.role === 'gamma') return values.fill(1)
    const limit = Math.sqrt(6 / (weight.fanIn + weight.fanOut))
    const stream = prngStream(`gensyn/init/v1 seed=${spec.training.seed} weight=${weight.name}`)
    for (let i = 0; i < size; i++) values[i] = (2 * stream.nextUnit() - 1) * limit
    return values
  })
}
