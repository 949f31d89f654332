import type {WeightInfo} from '../model/analyzeModel.js'
import type {JobSpec} from '../spec/schema.js'
import type {KernelShapes} from './kernelFlops.js'
import type {UnrolledOp} from './unrolledOp.js'

/**
 * The kernel calls of the update after the gradients, as trainingSession.ts writes it: global-norm clipping
 * (`training.clipNorm`), then per parameter sgd (with momentum), adam or adamw (its decoupled decay).
 */
export function unrollOptimizer(spec: JobSpec, params: readonly WeightInfo[]): UnrolledOp[] {
  const ops: UnrolledOp[] = []
  const emit = (_phase: 'optimizer', layer: number | undefined, kernelName: string, inputs: KernelShapes['inputs'], output: number[]) =>
    ops.push({phase: 'optimizer', layer, kernelName, inputs, outputs: [output]})
  const unary = (phase: 'optimizer', layer: number, kernelName: string, shape: number[]) => emit(phase, layer, kernelName, {x: shape}, shape)
  const binary = (phase: 'optimizer', layer: number | undefined, kernelName: string, a: number[], b: number[], output = a) => emit(phase, layer, kernelName, {a, b}, output)
  if (spec.training.clipNorm !== undefined) {
    // clipByGlobalNorm: sum(g^2) per parameter, their sum, sqrt, max with the bound, bound / that, g * factor
    for (const [i, {shape}] of params.entries()) {
      unary('optimizer', i, 'Square', shape)
      emit('optimizer', i, 'Sum', {x: shape}, [])
    }
    for (let i = 1; i < params.length; i++) binary('optimizer', i, 'Add', [], [])
    emit('optimizer', undefined, 'Sqrt', {x: []}, [])
    binary('optimizer', undefined, 'Maximum', [], [])
    binary('optimizer', undefined, 'RealDiv', [], [])
    for (const [i, {shape}] of params.entries()) binary('optimizer', i, 'Multiply', shape, [])
  }
  for (const [i, {shape}] of params.entries()) {
    if (spec.training.optimizer.type === 'sgd') {
      // momentum first: m * mu + g
      if (spec.training.optimizer.momentum !== undefined) {
        binary('optimizer', i, 'Multiply', shape, [])
        binary('optimizer', i, 'Add', shape, shape)
      }
      binary('optimizer', i, 'Multiply', shape, [])
      binary('optimizer', i, 'Sub', shape, shape)
      continue
    }
    // m = m*b1 + g*(1-b1); v = v*b2 + g^2*(1-b2); w = w - (m*a) / (sqrt(v) + eps)
    binary('optimizer', i, 'Multiply', shape, [])
    binary('optimizer', i, 'Multiply', shape, [])
    binary('optimizer', i, 'Add', shape, shape)
    binary('optimizer', i, 'Multiply', shape, [])
    unary('optimizer', i, 'Square', shape)
    binary('optimizer', i, 'Multiply', shape, [])
    binary('optimizer', i, 'Add', shape, shape)
    binary('optimizer', i, 'Multiply', shape, [])
    unary('optimizer', i, 'Sqrt', shape)
    binary('optimizer', i, 'Add', shape, [])
    binary('optimizer', i, 'RealDiv', shape, shape)
    // adamw's decoupled decay: w - w * (lr * weightDecay)
    if (spec.training.optimizer.type === 'adamw') {
      binary('optimizer', i, 'Multiply', shape, [])
      binary('optimizer', i, 'Sub', shape, shape)
    }
    binary('optimizer', i, 'Sub', shape, shape)
  }
  return ops
}
