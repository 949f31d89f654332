import type {LayerInfo} from '../model/analyzeModel.js'
import type {KernelShapes} from './kernelFlops.js'
import type {StepPhase} from './unrolledOp.js'

export type Emitters = {
  emit: (phase: StepPhase, layer: number | undefined, kernelName: string, inputs: KernelShapes['inputs'], output: number[], attrs?: KernelShapes['attrs']) => void
  unary: (phase: StepPhase, layer: number, kernelName: string, shape: number[]) => void
  binary: (phase: StepPhase, layer: number | undefined, kernelName: string, a: number[], b: number[], output?: number[]) => void
}

type SequenceLayer = Extract<LayerInfo['layer'], {type: 'embedding' | 'positionalEmbedding' | 'layerNormalization' | 'multiHeadAttention'}>

const matmul = (e: Emitters, phase: StepPhase, index: number, a: number[], b: number[], out: number[], transposeA = false) =>
  e.emit(phase, index, 'BatchMatMul', {a, b}, out, {transposeA, transposeB: false})

/**
 * The forward kernels of the sequence layers (src/ml/model/forward.ts), as tfjs 4.22 runs them (listed with
 * tf.profile): embedding as oneHot times the table, the positional table's add, layer normalisation's nine ops,
 * and multi-head attention's projections, transposes, scores, mask, softmax and context.
 */
export function forwardSequenceLayer(info: LayerInfo & {layer: SequenceLayer}, batch: number, e: Emitters): void {
  const {index, layer, inputShape, outputShape} = info
  const y = [batch, ...outputShape]
  const [sequence, width] = outputShape as [number, number]
  const rows = batch * sequence
  switch (layer.type) {
    case 'embedding':
      e.emit('forward', index, 'OneHot', {indices: [rows]}, [rows, layer.vocabulary])
      matmul(e, 'forward', index, [rows, layer.vocabulary], [layer.vocabulary, layer.units], [rows, layer.units])
      break
    case 'positionalEmbedding':
      e.binary('forward', index, 'Add', y, [sequence, width])
      break
    case 'layerNormalization': {
      const row = [batch, sequence, 1]
      e.emit('forward', index, 'Mean', {x: y}, row)
      e.binary('forward', index, 'Sub', y, row, y)
      e.unary('forward', index, 'Square', y)
      e.emit('forward', index, 'Mean', {x: y}, row)
      e.binary('forward', index, 'Add', row, [])
      e.unary('forward', index, 'Rsqrt', row)
      e.binary('forward', index, 'Multiply', y, row, y)
      e.binary('forward', index, 'Multiply', y, [width], y)
      e.binary('forward', index, 'Add', y, [width], y)
      break
    }
    case 'multiHeadAttention': {
      const size = width / layer.heads
      const heads = [batch, layer.heads, sequence, size]
      const scores = [batch, layer.heads, sequence, sequence]
      for (let i = 0; i < 3; i++) {
        e.emit('forward', index, '_FusedMatMul', {a: [1, rows, width], b: [1, width, width], bias: [width]}, [1, rows, width], {transposeA: false, transposeB: false, activation: 'linear'})
        e.emit('forward', index, 'Transpose', {x: [batch, sequence, layer.heads, size]}, heads)
      }
      matmul(e, 'forward', index, heads, heads, scores)
      e.binary('forward', index, 'Multiply', scores, [])
      if (layer.causal) e.binary('forward', index, 'Add', scores, [sequence, sequence], scores)
      e.emit('forward', index, 'Softmax', {logits: scores}, scores)
      matmul(e, 'forward', index, scores, heads, heads)
      e.emit('forward', index, 'Transpose', {x: heads}, [batch, sequence, layer.heads, size])
      e.emit('forward', index, '_FusedMatMul', {a: [1, rows, width], b: [1, width, width], bias: [width]}, [1, rows, width], {transposeA: false, transposeB: false, activation: 'linear'})
      break
    }
  }
  void inputShape
}

/**
 * Their backward kernels: the tables' gradients, layer normalisation's (input, gamma, beta) and attention's
 * (four projections, softmax, scores; the three input paths summed by two adds). `onPath`: the input needs a
 * gradient (a layer before has weights).
 */
export function backwardSequenceLayer(info: LayerInfo & {layer: SequenceLayer}, batch: number, onPath: boolean, e: Emitters): void {
  const {index, layer, outputShape} = info
  const y = [batch, ...outputShape]
  const [sequence, width] = outputShape as [number, number]
  const rows = batch * sequence
  switch (layer.type) {
    case 'embedding':
      matmul(e, 'backward', index, [rows, layer.vocabulary], [rows, layer.units], [layer.vocabulary, layer.units], true)
      break
    case 'positionalEmbedding':
      e.emit('backward', index, 'Sum', {x: y}, [sequence, width])
      break
    case 'layerNormalization': {
      const row = [batch, sequence, 1]
      const rowSum = [batch, sequence]
      e.emit('backward', index, 'Sum', {x: y}, [width])
      e.binary('backward', index, 'Multiply', y, [width], y)
      e.binary('backward', index, 'Multiply', y, y)
      e.emit('backward', index, 'Sum', {x: y}, [width])
      if (!onPath) break
      e.binary('backward', index, 'Multiply', y, row, y)
      e.binary('backward', index, 'Multiply', y, y)
      e.emit('backward', index, 'Sum', {x: y}, rowSum)
      e.binary('backward', index, 'Pow', row, [], row)
      e.binary('backward', index, 'Multiply', row, [], row)
      e.binary('backward', index, 'RealDiv', row, row)
      e.emit('backward', index, 'Neg', {x: row}, row)
      e.binary('backward', index, 'Multiply', row, y, y)
      e.binary('backward', index, 'RealDiv', y, [], y)
      e.binary('backward', index, 'Multiply', y, [], y)
      e.binary('backward', index, 'Multiply', y, y)
      e.binary('backward', index, 'Add', y, y)
      e.emit('backward', index, 'Sum', {x: y}, rowSum)
      e.emit('backward', index, 'Neg', {x: rowSum}, rowSum)
      e.binary('backward', index, 'Multiply', row, y, y)
      e.binary('backward', index, 'RealDiv', y, [], y)
      e.binary('backward', index, 'Add', y, y)
      break
    }
    case 'multiHeadAttention': {
      const size = width / layer.heads
      const heads = [batch, layer.heads, sequence, size]
      const scores = [batch, layer.heads, sequence, sequence]
      const projection = () => {
        e.emit('backward', index, 'BatchMatMul', {a: [1, rows, width], b: [1, width, width]}, [1, rows, width], {transposeA: false, transposeB: true})
        e.emit('backward', index, 'BatchMatMul', {a: [1, rows, width], b: [1, rows, width]}, [1, width, width], {transposeA: true, transposeB: false})
        e.emit('backward', index, 'Sum', {x: [1, rows, width]}, [width])
      }
      projection()
      e.emit('backward', index, 'Transpose', {x: [batch, sequence, layer.heads, size]}, heads)
      e.emit('backward', index, 'BatchMatMul', {a: heads, b: heads}, scores, {transposeA: false, transposeB: true})
      matmul(e, 'backward', index, scores, heads, heads, true)
      e.binary('backward', index, 'Multiply', scores, scores)
      e.emit('backward', index, 'Sum', {x: scores}, [batch, layer.heads, sequence, 1])
      e.binary('backward', index, 'Multiply', [batch, layer.heads, sequence, 1], scores, scores)
      e.binary('backward', index, 'Sub', scores, scores)
      e.binary('backward', index, 'Multiply', scores, [])
      matmul(e, 'backward', index, scores, heads, heads)
      matmul(e, 'backward', index, scores, heads, heads, true)
      for (let i = 0; i < 3; i++) {
        e.emit('backward', index, 'Transpose', {x: heads}, [batch, sequence, layer.heads, size])
        projection()
        if (i > 0) e.binary('backward', index, 'Add', y, y)
      }
      break
    }
  }
}

/** GELU, x * 0.5 * (1 + erf(x * sqrt(1/2))): its forward kernels (tf.profile's list). */
export function geluForward({binary, unary}: Emitters, index: number, y: number[]): void {
  binary('forward', index, 'Multiply', y, [])
  binary('forward', index, 'Multiply', y, [])
  unary('forward', index, 'Erf', y)
  binary('forward', index, 'Add', [], y, y)
  binary('forward', index, 'Multiply', y, y)
}

/** GELU's gradient through erf (exp of -x^2 and the products around it). */
export function geluBackward({binary, unary}: Emitters, index: number, y: number[]): void {
  binary('backward', index, 'Multiply', y, y)
  binary('backward', index, 'Multiply', y, y)
  unary('backward', index, 'Square', y)
  unary('backward', index, 'Neg', y)
  unary('backward', index, 'Exp', y)
  binary('backward', index, 'Multiply', y, [])
  binary('backward', index, 'Multiply', y, y)
  binary('backward', index, 'Multiply', y, [])
  binary('backward', index, 'Multiply', y, [])
  binary('backward', index, 'Add', y, y)
}
