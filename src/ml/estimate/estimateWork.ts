import {analyzed} from '../model/initialWeights.js'
import {type JobSpec, optimizerStateType} from '../spec/schema.js'
import {taskStepRange} from '../train/taskStepRange.js'
import {checkWorkLimits} from './checkWorkLimits.js'
import {totalFlops, type FlopCount} from './kernelFlops.js'
import {stepFlops, type StepFlops} from './stepFlops.js'
import {workUnitsFor} from './workUnitsFor.js'
import {defaultWorkTable, type OpClass, type WorkTable} from './workTable.js'

/** A task's estimated work (docs/market.md, section 1). */
export type WorkEstimate = {
  /** Steps of the task: the length of taskStepRange(spec). */
  steps: number
  flopsPerStep: number
  /** FLOPs of all the task's steps. */
  flops: number
  /** FLOPs per step, by class. */
  flopsByClass: Record<OpClass, number>
  /** Parameters, gradients, optimizer state and one step's activations, float32 (informational, not priced). */
  memoryBytes: number
  /** Weighted FLOPs per step / flopsPerWorkUnit (not rounded). */
  workUnitsPerStep: number
  /** ceil(workUnitsPerStep * steps), computed exactly. */
  workUnits: bigint
}

const product = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1)

/**
 * The bytes one training step holds, float32: the parameters, their gradients, adam's m and v (momentum's m), and the
 * activations the backward pass keeps (the input batch and every layer's output).
 */
export function memoryBytes(spec: JobSpec): number {
  const {layers, parameterCount} = analyzed(spec.model)
  const perParameter = {sgd: 2, momentum: 3, adam: 4}[optimizerStateType(spec)]
  const activations = spec.training.batchSize * (product(spec.model.inputShape) + layers.reduce((n, l) => n + product(l.outputShape), 0))
  return 4 * (parameterCount * perParameter + activations)
}

/**
 * Estimates the work of the task `spec` describes, without running anything: one training step unrolled
 * into its kernel calls and counted by class ({@link stepFlops}), times the task's steps
 * (`taskStepRange`), weighted by `table` into work units. Limits are checked first.
 *
 * @throws InvalidInputError when the spec is beyond a protocol limit ({@link checkWorkLimits})
 */
export function estimateWork(spec: JobSpec, table: WorkTable = defaultWorkTable): WorkEstimate {
  checkWorkLimits(spec, table)
  return estimateFromFlops(spec, stepFlops(spec), table)
}

function estimateFromFlops(spec: JobSpec, flops: StepFlops, table: WorkTable): WorkEstimate {
  const {start, end} = taskStepRange(spec)
  const steps = end - start
  const flopsByClass: FlopCount = {...flops.total}
  const flopsPerStep = totalFlops(flopsByClass)
  const units = workUnitsFor(flopsByClass, steps, table)
  return {
    steps,
    flopsPerStep,
    flops: flopsPerStep * steps,
    flopsByClass,
    memoryBytes: memoryBytes(spec),
    workUnitsPerStep: units.perStep,
    workUnits: units.total,
  }
}
