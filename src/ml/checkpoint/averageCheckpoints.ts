import {checkpointTensors} from './encodeCheckpoint.js'
import {CheckpointFormatError} from './errors.js'
import type {Checkpoint, CheckpointTensor, OptimizerState} from './types.js'

/**
 * The element-wise mean of a parallel split round's final checkpoints (docs/market.md, section 4), which the
 * next round starts from: every weight and optimizer moment is summed in float64 in the order given, divided by
 * their count and rounded to float32 once. Plain IEEE arithmetic in a fixed order, so anyone who reads the same
 * verified finals gets the same bits.
 * Adam's step count and bias-correction powers are the same in every shard (same steps), and are kept.
 *
 * @throws CheckpointFormatError when the checkpoints differ in step, tensor names or shapes, or optimizer
 */
export function averageCheckpoints(checkpoints: readonly Checkpoint[]): Checkpoint {
  const [first, ...rest] = checkpoints
  if (first === undefined) throw new CheckpointFormatError('averageCheckpoints: expected at least one checkpoint, got none')
  for (const [i, other] of rest.entries()) checkSameLayout(first, other, i + 1)
  const mean = (pick: (checkpoint: Checkpoint) => CheckpointTensor[]) => meanTensors(checkpoints.map(pick))
  return {step: first.step, weights: mean((c) => c.weights), optimizer: meanOptimizer(first.optimizer, checkpoints)}
}

function meanOptimizer(first: OptimizerState, checkpoints: readonly Checkpoint[]): OptimizerState {
  const moments = (kind: 'm' | 'v') => meanTensors(checkpoints.map((c) => (c.optimizer as Record<typeof kind, CheckpointTensor[]>)[kind]))
  if (first.type === 'sgd') return first
  if (first.type === 'momentum') return {type: 'momentum', m: moments('m')}
  return {...first, m: moments('m'), v: moments('v')}
}

/** Tensor by tensor, the mean of the same tensor in each list. */
function meanTensors(lists: readonly CheckpointTensor[][]): CheckpointTensor[] {
  const [head] = lists
  return (head ?? []).map((tensor, t) => {
    const sum = new Float64Array(tensor.values.length)
    for (const list of lists) {
      const values = (list[t] as CheckpointTensor).values
      for (let i = 0; i < sum.length; i++) sum[i]! += values[i]!
    }
    const values = new Float32Array(sum.length)
    for (let i = 0; i < sum.length; i++) values[i] = sum[i]! / lists.length
    return {name: tensor.name, shape: [...tensor.shape], values}
  })
}

function checkSameLayout(first: Checkpoint, other: Checkpoint, index: number): void {
  const where = `averageCheckpoints: checkpoint ${index}`
  if (other.step !== first.step) throw new CheckpointFormatError(`${where}: expected step ${first.step}, got ${other.step}`)
  if (other.optimizer.type !== first.optimizer.type) throw new CheckpointFormatError(`${where}: expected optimizer ${first.optimizer.type}, got ${other.optimizer.type}`)
  if (first.optimizer.type === 'adam' && other.optimizer.type === 'adam' && first.optimizer.t !== other.optimizer.t)
    throw new CheckpointFormatError(`${where}: expected adam's t ${first.optimizer.t}, got ${other.optimizer.t}`)
  const a = checkpointTensors(first)
  const b = checkpointTensors(other)
  if (a.length !== b.length) throw new CheckpointFormatError(`${where}: expected ${a.length} tensors, got ${b.length}`)
  for (const [i, tensor] of a.entries()) {
    const same = b[i]!
    if (same.name !== tensor.name || same.shape.join(',') !== tensor.shape.join(','))
      throw new CheckpointFormatError(`${where}: tensor ${i}: expected ${tensor.name} [${tensor.shape.join(', ')}], got ${same.name} [${same.shape.join(', ')}]`)
  }
}
