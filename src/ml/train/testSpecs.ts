import {parseJobSpec} from '../spec/parseJobSpec.js'
import type {JobSpec} from '../spec/schema.js'

/** Small, fast job specs for tests (not fixtures: they are too small to learn much). */
export function tinySpec({
  optimizer = 'adam',
  steps = 60,
  interval = 20,
  layers = '[{type: dense, units: 16, activation: relu}, {type: dense, units: 10, activation: softmax}]',
  inputShape = '[784]',
  trainLimit = 500,
  seed = 5,
  microBatches,
}: {optimizer?: 'adam' | 'sgd'; steps?: number; interval?: number; layers?: string; inputShape?: string; trainLimit?: number; seed?: number; microBatches?: number} = {}): JobSpec {
  const opt = optimizer === 'adam' ? '{type: adam, learningRate: 0.005}' : '{type: sgd, learningRate: 0.1}'
  return parseJobSpec(`name: tiny-${optimizer}
model: {inputShape: ${inputShape}, layers: ${layers}}
dataset: {name: mnist, trainLimit: ${trainLimit}, testLimit: 200}
training: {steps: ${steps}, batchSize: 32, optimizer: ${opt}, seed: ${seed}${microBatches === undefined ? '' : `, microBatches: ${microBatches}`}}
proof: {checkpointInterval: ${interval}}
verification: {segments: 2}
payment: {maxPrice: "0.00002"}`)
}

export const tinyCnnLayers =
  '[{type: conv2d, filters: 4, kernelSize: 3, strides: 2, activation: relu}, {type: maxPooling2d, poolSize: 2}, {type: flatten}, {type: dense, units: 10, activation: softmax}]'
