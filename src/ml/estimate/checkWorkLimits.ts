import {InvalidInputError} from '../../errors/base.js'
import {analyzed} from '../model/initialWeights.js'
import type {JobSpec} from '../spec/schema.js'
import {taskStepRange} from '../train/taskStepRange.js'
import {stepFlops} from './stepFlops.js'
import {workUnitsFor} from './workUnitsFor.js'
import type {WorkTable} from './workTable.js'

const product = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1)
const show = (shape: readonly number[]) => `[${shape.join(', ')}]`

/** Steps of the largest task the spec makes: its own range, or for a job file with `split` one N-th of it. */
export function stepsPerTask(spec: Pick<JobSpec, 'training' | 'split'>): number {
  if (spec.split !== undefined && spec.split.index === undefined) return Math.ceil(spec.training.steps / spec.split.tasks)
  const {start, end} = taskStepRange(spec)
  return end - start
}

/**
 * Refuses a spec beyond a protocol limit of `table` (docs/market.md, section 1), checked in this order:
 * `maxSteps` (training.steps), `maxLayers` (model.layers), `maxBatchSize` (training.batchSize),
 * `maxTensorElements` (the input batch, every layer's output with the batch, every parameter tensor), then
 * `maxWorkUnits` (the work units of one task). Every loop a job runs is bounded by these, so an estimate
 * (and a training run) always ends.
 *
 * @throws InvalidInputError naming the field, the limit and the value, in one line
 */
export function checkWorkLimits(spec: JobSpec, table: WorkTable): void {
  const limit = (field: string, expected: string, name: keyof WorkTable, got: string) =>
    new InvalidInputError(`${field}: expected at most ${expected} (protocol limit ${name}), got ${got}`)
  const {steps, batchSize} = spec.training
  if (steps > table.maxSteps) throw limit('training.steps', `${table.maxSteps}`, 'maxSteps', `${steps}`)
  const layerCount = spec.model.layers.length
  if (layerCount > table.maxLayers) throw limit('model.layers', `${table.maxLayers} layers`, 'maxLayers', `${layerCount}`)
  if (batchSize > table.maxBatchSize) throw limit('training.batchSize', `${table.maxBatchSize}`, 'maxBatchSize', `${batchSize}`)

  const maxElements = `${table.maxTensorElements} elements per tensor`
  const input = [batchSize, ...spec.model.inputShape]
  if (product(input) > table.maxTensorElements)
    throw limit('model.inputShape', maxElements, 'maxTensorElements', `${product(input)} (the input batch ${show(input)})`)
  for (const {index, outputShape, weights} of analyzed(spec.model).layers) {
    const output = [batchSize, ...outputShape]
    if (product(output) > table.maxTensorElements)
      throw limit(`model.layers[${index}]`, maxElements, 'maxTensorElements', `${product(output)} (its output ${show(output)}, batch included)`)
    for (const weight of weights)
      if (product(weight.shape) > table.maxTensorElements)
        throw limit(`model.layers[${index}]`, maxElements, 'maxTensorElements', `${product(weight.shape)} (its ${weight.role} ${show(weight.shape)})`)
  }

  const taskSteps = stepsPerTask(spec)
  const {perStep, total} = workUnitsFor(stepFlops(spec).total, taskSteps, table)
  if (total > BigInt(table.maxWorkUnits))
    throw limit(
      'training.steps',
      `${table.maxWorkUnits} work units per task`,
      'maxWorkUnits',
      `${total} (${perStep.toPrecision(6)} per step x ${taskSteps} steps; train fewer steps, a smaller model, or split the job)`,
    )
}
