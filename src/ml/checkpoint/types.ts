/** One named float32 tensor of a checkpoint. */
export type CheckpointTensor = {name: string; shape: number[]; values: Float32Array}

/**
 * Optimizer state. Adam keeps the number of updates applied (t), the running float32 products
 * beta1^t and beta2^t, and the first/second moment estimates m and v (one per weight, same order and
 * shapes as the weights, named `m/<weight>` and `v/<weight>`). SGD has no state; SGD with momentum keeps its
 * velocity m per weight (`m/<weight>`).
 */
export type OptimizerState =
  | {type: 'sgd'}
  | {type: 'momentum'; m: CheckpointTensor[]}
  | {type: 'adam'; t: number; beta1Power: number; beta2Power: number; m: CheckpointTensor[]; v: CheckpointTensor[]}

/** A training state: the weights after `step` optimizer steps, plus the optimizer state. */
export type Checkpoint = {step: number; weights: CheckpointTensor[]; optimizer: OptimizerState}
