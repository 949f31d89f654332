import type {LossType} from '../spec/schema.js'
import type {KernelShapes} from './kernelFlops.js'
import type {UnrolledOp} from './unrolledOp.js'

/**
 * The kernel calls of a training step's loss and its gradient back to the model's outputs (`logits`,
 * [batch, outputs]), as tfjs 4.22 runs them (listed with tf.profile): softmax cross-entropy, or a regression's
 * mean squared (SquaredDifference) or absolute (Sub, Abs) error, each averaged over the batch. Reshapes and
 * casts are left out (0 FLOPs).
 */
export function unrollLoss(loss: LossType, logits: number[]): UnrolledOp[] {
  const ops: UnrolledOp[] = []
  const emit = (kernelName: string, inputs: KernelShapes['inputs'], output: number[]) => ops.push({phase: 'loss', layer: undefined, kernelName, inputs, outputs: [output]})
  const binary = (kernelName: string, a: number[], b: number[], output = a) => emit(kernelName, {a, b}, output)
  if (loss === 'crossEntropy') crossEntropy(logits, emit, binary)
  else {
    if (loss === 'mse') binary('SquaredDifference', logits, logits)
    else {
      binary('Sub', logits, logits)
      emit('Abs', {x: logits}, logits)
    }
    // the mean over every element, then its gradient spread back over the outputs
    emit('Sum', {x: logits}, [])
    binary('RealDiv', [], [])
    binary('RealDiv', [], [])
    binary('Multiply', [1, 1], logits, logits)
    if (loss === 'mse') {
      binary('Sub', logits, logits)
      binary('Multiply', [], logits, logits)
      binary('Multiply', logits, logits)
    } else {
      emit('Step', {x: logits}, logits)
      binary('Multiply', logits, logits)
      emit('Neg', {x: logits}, logits)
    }
  }
  return ops
}

type Emit = (kernelName: string, inputs: KernelShapes['inputs'], output: number[]) => void
type Binary = (kernelName: string, a: number[], b: number[], output?: number[]) => void

/** tf.losses.softmaxCrossEntropy(y, logits) = mean over the batch of -sum(y * (logits - logSumExp(logits))), and its custom gradient. */
function crossEntropy(logits: number[], emit: Emit, binary: Binary): void {
  // per row of logits: a sample, or a language model's position in a sample
  const rows = logits.slice(0, -1)
  const row = [...rows, 1]
  emit('Max', {x: logits}, row)
  binary('Sub', logits, row, logits)
  emit('Exp', {x: logits}, logits)
  emit('Sum', {x: logits}, rows)
  emit('Log', {x: rows}, rows)
  binary('Add', rows, rows)
  binary('Sub', logits, row, logits)
  binary('Multiply', logits, logits)
  emit('Neg', {x: logits}, logits)
  emit('Sum', {x: logits}, rows)
  emit('Sum', {x: rows}, [])
  binary('RealDiv', [], [])
  // its gradient: the mean's division and sum, then the custom gradient (labels and logits)
  binary('RealDiv', [], [])
  binary('Multiply', rows.map(() => 1), rows, rows)
  for (let i = 0; i < 2; i++) {
    emit('Exp', {x: logits}, logits)
    binary('Sub', logits, logits)
    binary('Multiply', row, logits, logits)
  }
}
