import {type LayerInfo, pair} from '../model/analyzeModel.js'
import {analyzed} from '../model/initialWeights.js'
import {type JobSpec, type LayerSpec, lossOf} from '../spec/schema.js'
import {microBatchCount} from '../train/microBatches.js'
import type {KernelShapes} from './kernelFlops.js'
import {unrollLoss} from './unrollLoss.js'
import {unrollOptimizer} from './unrollOptimizer.js'
import {backwardSequenceLayer, type Emitters, forwardSequenceLayer, geluBackward, geluForward} from './unrollSequenceLayers.js'
import type {StepPhase, UnrolledOp} from './unrolledOp.js'

export type {StepPhase, UnrolledOp} from './unrolledOp.js'

type Activation = Extract<LayerSpec, {type: 'dense'}>['activation']

/**
 * The kernel calls of one training step of `spec` (TrainingSession.trainStep on any tfjs backend), derived
 * from the model alone: the forward pass of src/ml/model/forward.ts, tf.losses.softmaxCrossEntropy, the
 * backward pass tfjs's gradients run, and the optimizer update. Calls that move data only (reshape,
 * identity, cast, transpose) are left out: they count 0 FLOPs. The rules followed, from tfjs 4.22:
 *
 * - Under a gradient tape tfjs fuses only linear activations: a relu layer runs BatchMatMul/Conv2D, Add
 *   (bias) and Relu, whose gradients are per input and lazy; a linear, sigmoid, tanh or softmax layer runs
 *   _FusedMatMul/FusedConv2D (linear) and then the activation, and the fused op's custom gradient computes
 *   the input, weight and bias gradients together, so its input gradient is paid even for layer 0.
 * - A lazy gradient is computed only for tensors on a path to a parameter: nothing before the first layer
 *   with weights gets an input gradient (dropout or pooling on the raw batch costs no backward work).
 * - The loss's custom gradient computes the gradients for both the labels and the logits.
 * - adam: m, v and the parameter as trainingSession.ts writes them (11 elementwise ops and a sqrt per
 *   parameter element); sgd: a multiply and a subtract.
 *
 * @throws ModelSpecError when the model is invalid
 */
export function unrollStep(spec: JobSpec): UnrolledOp[] {
  const {layers: topLayers} = analyzed(spec.model)
  // a residual block runs its layers, then adds its input: `end` marks where (forward) and where its two
  // gradients meet (backward)
  const layers = flattenResiduals(topLayers)
  // forward, loss and backward run once per micro-batch, on its rows (src/ml/train/microBatches.ts)
  const microBatches = microBatchCount(spec)
  const B = spec.training.batchSize / microBatches
  const lastIndex = topLayers.length - 1
  const ops: UnrolledOp[] = []
  const emit = (phase: StepPhase, layer: number | undefined, kernelName: string, inputs: KernelShapes['inputs'], output: number[], attrs?: KernelShapes['attrs']) =>
    ops.push({phase, layer, kernelName, inputs, outputs: [output], attrs})
  const unary = (phase: StepPhase, layer: number, kernelName: string, shape: number[]) => emit(phase, layer, kernelName, {x: shape}, shape)
  const binary = (phase: StepPhase, layer: number | undefined, kernelName: string, a: number[], b: number[], output = a) => emit(phase, layer, kernelName, {a, b}, output)

  // the activation a layer applies after its (fused or unfused) linear part, as forward.ts decides it
  const activationOf = (index: number, activation: Activation): Activation => (index === lastIndex && activation === 'softmax' ? 'linear' : activation)
  const activationKernel = {sigmoid: 'Sigmoid', tanh: 'Tanh'} as const
  const emitters = {emit, unary, binary}
  // a dense or conv2d layer's shapes, the same in the forward and the backward pass
  const linearPart = (index: number, layer: Extract<LayerSpec, {type: 'dense' | 'conv2d'}>, inputShape: readonly number[], outputShape: readonly number[]) => {
    const units = outputShape[outputShape.length - 1] as number
    return {
      act: activationOf(index, layer.activation),
      units,
      kernel: layer.type === 'dense' ? [inputShape[inputShape.length - 1] as number, units] : [...pair(layer.kernelSize), inputShape[2] as number, units],
      convAttrs: layer.type === 'conv2d' ? {strides: pair(layer.strides), pad: layer.padding} : undefined,
    }
  }

  // forward
  for (const info of layers) {
    const {index, layer, inputShape, outputShape} = info
    if ('end' in info) {
      binary('forward', index, 'Add', [B, ...outputShape], [B, ...outputShape])
      continue
    }
    // a dense layer over [sequence, features] runs on the flat [B·sequence, features] view
    const x = layer.type === 'dense' ? [B * rowsPerSample(inputShape), inputShape[inputShape.length - 1] as number] : [B, ...inputShape]
    const y = layer.type === 'dense' ? [B * rowsPerSample(outputShape), outputShape[outputShape.length - 1] as number] : [B, ...outputShape]
    switch (layer.type) {
      case 'dense':
      case 'conv2d': {
        const {act, units, kernel, convAttrs} = linearPart(index, layer, inputShape, outputShape)
        if (act === 'relu') {
          if (layer.type === 'dense') emit('forward', index, 'BatchMatMul', {a: x, b: kernel}, y, {transposeA: false, transposeB: false})
          else emit('forward', index, 'Conv2D', {x, filter: kernel}, y, convAttrs)
          binary('forward', index, 'Add', y, [units])
          unary('forward', index, 'Relu', y)
        } else {
          if (layer.type === 'dense')
            emit('forward', index, '_FusedMatMul', {a: [1, ...x], b: [1, ...kernel], bias: [units]}, [1, ...y], {transposeA: false, transposeB: false, activation: 'linear'})
          else emit('forward', index, 'FusedConv2D', {x, filter: kernel, bias: [units]}, y, {...convAttrs, activation: 'linear'})
          if (act === 'softmax') emit('forward', index, 'Softmax', {logits: y}, y)
          else if (act === 'gelu') geluForward(emitters, index, y)
          else if (act !== 'linear') unary('forward', index, activationKernel[act], y)
        }
        break
      }
      case 'maxPooling2d':
      case 'avgPooling2d':
        emit('forward', index, layer.type === 'maxPooling2d' ? 'MaxPool' : 'AvgPool', {x}, y, {filterSize: pair(layer.poolSize), strides: pair(layer.strides ?? layer.poolSize), pad: layer.padding})
        break
      case 'globalAveragePooling':
        emit('forward', index, 'Mean', {x}, y)
        break
      case 'dropout':
        if (layer.rate > 0) binary('forward', index, 'Multiply', x, x)
        break
      case 'flatten':
      case 'residual':
        break
      default:
        forwardSequenceLayer({...info, layer}, B, emitters)
    }
  }

  // loss, forward and its gradient (src/ml/estimate/unrollLoss.ts)
  ops.push(...unrollLoss(lossOf(spec), [B, ...(topLayers[lastIndex]?.outputShape ?? [])]))

  // backward: layers in reverse; `onPath` = some layer before this one has weights, so its input needs a gradient
  // (positions in execution order; a residual's `end` needs its add when the block's input needs a gradient)
  const firstWeighted = layers.findIndex((info) => !('end' in info) && info.weights.length > 0)
  for (const [position, info] of [...layers.entries()].reverse()) {
    const {index, layer, inputShape, outputShape} = info
    if ('end' in info) {
      if (layers.findIndex((other) => other.path.startsWith(`${info.path}/residual/`)) > firstWeighted) binary('backward', index, 'Add', [B, ...outputShape], [B, ...outputShape])
      continue
    }
    const x = layer.type === 'dense' ? [B * rowsPerSample(inputShape), inputShape[inputShape.length - 1] as number] : [B, ...inputShape]
    const y = layer.type === 'dense' ? [B * rowsPerSample(outputShape), outputShape[outputShape.length - 1] as number] : [B, ...outputShape]
    const onPath = position > firstWeighted
    switch (layer.type) {
      case 'dense':
      case 'conv2d': {
        linearBackward(emitters, index, layer.type, linearPart(index, layer, inputShape, outputShape), x, y, onPath)
        break
      }
      case 'maxPooling2d':
        if (onPath)
          emit('backward', index, 'MaxPoolGrad', {dy: y, input: x, output: y}, x, {filterSize: pair(layer.poolSize), strides: pair(layer.strides ?? layer.poolSize), pad: layer.padding})
        break
      case 'avgPooling2d':
        if (onPath) emit('backward', index, 'AvgPoolGrad', {dy: y, input: x}, x, {filterSize: pair(layer.poolSize), strides: pair(layer.strides ?? layer.poolSize), pad: layer.padding})
        break
      case 'globalAveragePooling':
        // the mean's gradient: dy spread over every position, then divided by their count
        if (onPath) {
          binary('backward', index, 'Multiply', [B, ...inputShape.map((size, axis) => (axis === inputShape.length - 1 ? size : 1))], x, x)
          binary('backward', index, 'RealDiv', x, [])
        }
        break
      case 'dropout':
        if (onPath && layer.rate > 0) binary('backward', index, 'Multiply', y, y)
        break
      case 'flatten':
      case 'residual':
        break
      default:
        backwardSequenceLayer({...info, layer}, B, onPath, emitters)
    }
  }

  const weights = topLayers.flatMap((l) => l.weights)
  if (microBatches > 1) ops.push(...averageMicroBatches(ops.splice(0), microBatches, weights.map((w) => w.shape)))

  // optimizer update per parameter (src/ml/estimate/unrollOptimizer.ts)
  ops.push(...unrollOptimizer(spec, weights))

  return ops
}

/** The backward kernels of a dense or conv2d layer: its activation's gradient, then the (fused or unfused) linear part's. */
function linearBackward(
  {emit, unary, binary}: Emitters,
  index: number,
  type: 'dense' | 'conv2d',
  {act, units, kernel, convAttrs}: {act: Activation; units: number; kernel: number[]; convAttrs: KernelShapes['attrs']},
  x: number[],
  y: number[],
  onPath: boolean,
): void {
  const biasAxes = y.length - 1
  if (act === 'relu') {
    unary('backward', index, 'Step', y)
    binary('backward', index, 'Multiply', y, y)
    emit('backward', index, 'Sum', {x: y}, [units], {axis: [...Array(biasAxes).keys()]})
    if (type === 'dense') {
      if (onPath) emit('backward', index, 'BatchMatMul', {a: y, b: kernel}, x, {transposeA: false, transposeB: true})
      emit('backward', index, 'BatchMatMul', {a: x, b: y}, kernel, {transposeA: true, transposeB: false})
    } else {
      if (onPath) emit('backward', index, 'Conv2DBackpropInput', {dy: y, filter: kernel}, x, convAttrs)
      emit('backward', index, 'Conv2DBackpropFilter', {x, dy: y}, kernel, convAttrs)
    }
    return
  }
  if (act === 'sigmoid') {
    binary('backward', index, 'Sub', [], y, y)
    binary('backward', index, 'Multiply', y, y)
    binary('backward', index, 'Multiply', y, y)
  } else if (act === 'tanh') {
    unary('backward', index, 'Square', y)
    binary('backward', index, 'Sub', [], y, y)
    binary('backward', index, 'Multiply', y, y)
  } else if (act === 'gelu') {
    geluBackward({emit, unary, binary}, index, y)
  } else if (act === 'softmax') {
    const reduced = [...y.slice(0, -1), 1]
    binary('backward', index, 'Multiply', y, y)
    emit('backward', index, 'Sum', {x: y}, reduced)
    binary('backward', index, 'Multiply', reduced, y, y)
    binary('backward', index, 'Sub', y, y)
  }
  // the fused op's custom gradient: input, weights and bias, whether or not the input needs one
  if (type === 'dense') {
    emit('backward', index, 'BatchMatMul', {a: [1, ...y], b: [1, ...kernel]}, [1, ...x], {transposeA: false, transposeB: true})
    emit('backward', index, 'BatchMatMul', {a: [1, ...x], b: [1, ...y]}, [1, ...kernel], {transposeA: true, transposeB: false})
    emit('backward', index, 'Sum', {x: [1, ...y]}, [units])
  } else {
    emit('backward', index, 'Conv2DBackpropInput', {dy: y, filter: kernel}, x, convAttrs)
    emit('backward', index, 'Conv2DBackpropFilter', {x, dy: y}, kernel, convAttrs)
    emit('backward', index, 'Sum', {x: y}, [units])
  }
}

/**
 * Every micro-batch's forward, loss and backward (`microBatch`, one micro-batch's calls), then averageInIndexOrder:
 * per later micro-batch an Add of the losses and one per gradient, then the divisions by the count.
 */
function averageMicroBatches(microBatch: readonly UnrolledOp[], count: number, shapes: readonly number[][]): UnrolledOp[] {
  const ops: UnrolledOp[] = Array.from({length: count}, () => microBatch).flat()
  const binary = (kernelName: string, layer: number | undefined, shape: number[]) =>
    ops.push({phase: 'optimizer', layer, kernelName, inputs: {a: shape, b: kernelName === 'Add' ? shape : []}, outputs: [shape]})
  for (let k = 1; k < count; k++) {
    binary('Add', undefined, [])
    for (const [i, shape] of shapes.entries()) binary('Add', i, shape)
  }
  binary('RealDiv', undefined, [])
  for (const [i, shape] of shapes.entries()) binary('RealDiv', i, shape)
  return ops
}

type FlatLayer = LayerInfo | (LayerInfo & {end: true})

/** The layers in execution order, a residual block's inner layers in place and an `end` marker after them. */
function flattenResiduals(layers: readonly LayerInfo[]): FlatLayer[] {
  return layers.flatMap((info): FlatLayer[] => (info.inner ? [...flattenResiduals(info.inner), {...info, end: true as const}] : [info]))
}

/** Positions per sample a dense layer runs over: 1 for a flat input, the sequence length for [sequence, features]. */
function rowsPerSample(shape: readonly number[]): number {
  return shape.slice(0, -1).reduce((a, b) => a * b, 1)
}
