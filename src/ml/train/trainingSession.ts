import * as tf from '@tensorflow/tfjs'
import type {Checkpoint, CheckpointTensor} from '../checkpoint/types.js'
import {type Samples, targetSize, writeTarget} from '../data/samples.js'
import {samplesFor} from '../data/samplesFor.js'
import {forward} from '../model/forward.js'
import {analyzed, modelWeights} from '../model/initialWeights.js'
import {type JobSpec, lossOf, optimizerStateType} from '../spec/schema.js'
import {batchIndices} from './batchIndices.js'
import {CheckpointMismatchError, TrainingAbortedError} from './errors.js'
import {clipByGlobalNorm} from './clipByGlobalNorm.js'
import {learningRateAt} from './learningRate.js'
import {lossTensor} from './lossTensor.js'

export type RunOptions = {
  /** Called after each step with the new step count and that step's batch loss (forces a device read). */
  onStep?: ((step: number, loss: number) => void) | undefined
  /** Called after each step that `stopAt` names, before continuing (e.g. to checkpoint). */
  onBoundary?: ((step: number) => void | Promise<void>) | undefined
  stopAt?: ReadonlySet<number> | undefined
  signal?: AbortSignal | undefined
}

/** The features and targets of `indices` (rows of `samples`), as a batch: x [B, featureSize], y [B, outputs]. */
export function batchOf(samples: Samples, indices: Int32Array): {x: Float32Array; y: Float32Array; indices: Int32Array} {
  const size = samples.featureSize
  const x = new Float32Array(indices.length * size)
  const y = new Float32Array(indices.length * targetSize(samples))
  for (const [j, i] of indices.entries()) {
    x.set(samples.features.subarray(i * size, (i + 1) * size), j * size)
    writeTarget(samples, i, y, j)
  }
  return {x, y, indices}
}

/**
 * The training state of one job on the active tfjs backend, and the exact update rule (documented in
 * docs/checkpoint-format.md, "Training step"). Used by trainJob and by verifiers' replays, so both run
 * the same code. Call {@link TrainingSession.dispose} when done.
 */
export class TrainingSession {
  readonly spec: JobSpec
  step = 0
  lastLoss = Number.NaN
  private params: tf.Tensor[] = []
  private m: tf.Tensor[] = []
  private v: tf.Tensor[] = []
  private t = 0
  private beta1Power = 1
  private beta2Power = 1
  protected readonly data: Samples
  private readonly names: string[]
  private readonly shapes: number[][]
  /** The model's output per sample ([classes], [outputs], or a language model's [context, vocabulary]). */
  private readonly outputShape: number[]

  constructor(spec: JobSpec) {
    this.spec = spec
    this.data = samplesFor(spec, 'train')
    const weights = modelWeights(spec.model)
    this.names = weights.map((w) => w.name)
    this.shapes = weights.map((w) => w.shape)
    this.outputShape = analyzed(spec.model).layers.at(-1)!.outputShape
  }

  /** Replaces the state with a checkpoint's (names, shapes and optimizer type must match the job). */
  load(checkpoint: Checkpoint): void {
    const expectOptimizer = optimizerStateType(this.spec)
    if (checkpoint.optimizer.type !== expectOptimizer)
      throw new CheckpointMismatchError(`checkpoint optimizer: expected ${expectOptimizer}, got ${checkpoint.optimizer.type}`)
    const check = (tensors: CheckpointTensor[], prefix: string) => {
      if (tensors.length !== this.names.length)
        throw new CheckpointMismatchError(`checkpoint ${prefix || 'weights'}: expected ${this.names.length} tensors, got ${tensors.length}`)
      for (const [i, t] of tensors.entries()) {
        const name = `${prefix}${this.names[i]}`
        const shape = this.shapes[i] as number[]
        if (t.name !== name || t.shape.join(',') !== shape.join(','))
          throw new CheckpointMismatchError(`checkpoint tensor ${i}: expected ${name} [${shape.join(', ')}], got ${t.name} [${t.shape.join(', ')}]`)
      }
    }
    check(checkpoint.weights, '')
    this.disposeState()
    this.params = checkpoint.weights.map((w) => tf.keep(tf.tensor(w.values, w.shape, 'float32')))
    if (checkpoint.optimizer.type === 'momentum') {
      check(checkpoint.optimizer.m, 'm/')
      this.m = checkpoint.optimizer.m.map((w) => tf.keep(tf.tensor(w.values, w.shape, 'float32')))
    }
    if (checkpoint.optimizer.type === 'adam') {
      check(checkpoint.optimizer.m, 'm/')
      check(checkpoint.optimizer.v, 'v/')
      this.m = checkpoint.optimizer.m.map((w) => tf.keep(tf.tensor(w.values, w.shape, 'float32')))
      this.v = checkpoint.optimizer.v.map((w) => tf.keep(tf.tensor(w.values, w.shape, 'float32')))
      this.t = checkpoint.optimizer.t
      this.beta1Power = checkpoint.optimizer.beta1Power
      this.beta2Power = checkpoint.optimizer.beta2Power
    }
    this.step = checkpoint.step
    this.lastLoss = Number.NaN
  }

  /** The current state as a checkpoint (copies the tensors off the backend; async because a GPU can only be read so). */
  async snapshot(): Promise<Checkpoint> {
    const read = (tensors: tf.Tensor[], prefix: string): Promise<CheckpointTensor[]> =>
      Promise.all(
        tensors.map(async (t, i) => ({name: `${prefix}${this.names[i]}`, shape: [...(this.shapes[i] as number[])], values: new Float32Array((await t.data()) as Float32Array)})),
      )
    const weights = await read(this.params, '')
    const state = optimizerStateType(this.spec)
    if (state === 'sgd') return {step: this.step, weights, optimizer: {type: 'sgd'}}
    if (state === 'momentum') return {step: this.step, weights, optimizer: {type: 'momentum', m: await read(this.m, 'm/')}}
    return {
      step: this.step,
      weights,
      optimizer: {type: 'adam', t: this.t, beta1Power: this.beta1Power, beta2Power: this.beta2Power, m: await read(this.m, 'm/'), v: await read(this.v, 'v/')},
    }
  }

  /** The input batch of a step: float32 features [B, ...inputShape] and targets [B, outputs] (one-hot classes or values). */
  batch(step: number): {x: Float32Array; y: Float32Array; indices: Int32Array} {
    const {batchSize, seed} = this.spec.training
    return batchOf(this.data, batchIndices({seed, step, batchSize, datasetSize: this.data.count}))
  }

  /** Runs steps until the state reaches `toStep`. Returns the last step's loss (NaN when no step ran). */
  async run(toStep: number, options: RunOptions = {}): Promise<number> {
    if (this.params.length !== this.names.length) throw new CheckpointMismatchError('training session: load a checkpoint first')
    let loss = Number.NaN
    while (this.step < toStep) {
      if (options.signal?.aborted) throw new TrainingAbortedError(this.step)
      const wantLoss = options.onStep !== undefined || this.step + 1 === toStep
      const lossTensor = this.trainStep()
      if (wantLoss) loss = ((await lossTensor.data()) as Float32Array)[0] as number
      lossTensor.dispose()
      if (wantLoss) this.lastLoss = loss
      options.onStep?.(this.step, loss)
      if (options.stopAt?.has(this.step)) await options.onBoundary?.(this.step)
    }
    return loss
  }

  /** One optimizer step on batch `this.step`; returns the batch loss (caller disposes). */
  private trainStep(): tf.Scalar {
    const {spec} = this
    const {batchSize, seed, optimizer} = spec.training
    const step = this.step
    const {x: xValues, y: yValues} = this.batch(step)
    const old = [...this.params, ...this.m, ...this.v]
    // adam's scalar schedule in float32 arithmetic (Math.fround after every operation, which equals
    // IEEE float32 arithmetic for + - * / sqrt): bias correction from running products, never pow()
    const learningRate = learningRateAt(spec, step)
    let alpha = 0
    let beta1Power = this.beta1Power
    let beta2Power = this.beta2Power
    if (optimizer.type !== 'sgd') {
      beta1Power = Math.fround(beta1Power * Math.fround(optimizer.beta1))
      beta2Power = Math.fround(beta2Power * Math.fround(optimizer.beta2))
      const correction = Math.fround(Math.sqrt(Math.fround(1 - beta2Power)))
      alpha = Math.fround(Math.fround(learningRate * correction) / Math.fround(1 - beta1Power))
    }
    const result = tf.tidy(() => {
      const x = tf.tensor(xValues, [batchSize, ...spec.model.inputShape], 'float32')
      const y = tf.tensor(yValues, [batchSize, ...this.outputShape], 'float32')
      const loss = lossOf(spec)
      const lossOfParams = (...params: tf.Tensor[]) => lossTensor(loss, y, forward(spec, params, x, {training: true, seed, step})) as tf.Scalar
      const {value, grads: raw} = tf.valueAndGrads(lossOfParams)(this.params)
      const grads = spec.training.clipNorm === undefined ? raw : clipByGlobalNorm(raw, spec.training.clipNorm)
      if (optimizer.type === 'sgd') {
        const lr = tf.scalar(learningRate, 'float32')
        if (optimizer.momentum === undefined) return {loss: value, params: this.params.map((w, i) => tf.sub(w, tf.mul(grads[i] as tf.Tensor, lr))), m: [], v: []}
        // heavy ball: m <- m * mu + g, w <- w - m * lr
        const mu = tf.scalar(Math.fround(optimizer.momentum), 'float32')
        const m = this.m.map((mi, i) => tf.add(tf.mul(mi, mu), grads[i] as tf.Tensor))
        return {loss: value, params: this.params.map((w, i) => tf.sub(w, tf.mul(m[i] as tf.Tensor, lr))), m, v: []}
      }
      const b1 = tf.scalar(Math.fround(optimizer.beta1), 'float32')
      const b2 = tf.scalar(Math.fround(optimizer.beta2), 'float32')
      const oneMinusB1 = tf.scalar(Math.fround(1 - Math.fround(optimizer.beta1)), 'float32')
      const oneMinusB2 = tf.scalar(Math.fround(1 - Math.fround(optimizer.beta2)), 'float32')
      const eps = tf.scalar(Math.fround(optimizer.epsilon), 'float32')
      const a = tf.scalar(alpha, 'float32')
      const m = this.m.map((mi, i) => tf.add(tf.mul(mi, b1), tf.mul(grads[i] as tf.Tensor, oneMinusB1)))
      const v = this.v.map((vi, i) => tf.add(tf.mul(vi, b2), tf.mul(tf.square(grads[i] as tf.Tensor), oneMinusB2)))
      // adamw: the decay is decoupled from the moments, w - w * (lr * weightDecay) - the adam update
      const decay = optimizer.type === 'adamw' ? tf.scalar(Math.fround(learningRate * Math.fround(optimizer.weightDecay)), 'float32') : undefined
      const params = this.params.map((w, i) => {
        const update = tf.div(tf.mul(m[i] as tf.Tensor, a), tf.add(tf.sqrt(v[i] as tf.Tensor), eps))
        return tf.sub(decay ? tf.sub(w, tf.mul(w, decay)) : w, update)
      })
      return {loss: value, params, m, v}
    })
    for (const t of old) t.dispose()
    if (optimizer.type !== 'sgd') {
      this.t += 1
      this.beta1Power = beta1Power
      this.beta2Power = beta2Power
    }
    this.params = result.params
    this.m = result.m
    this.v = result.v
    this.step = step + 1
    return result.loss
  }

  private disposeState(): void {
    for (const t of [...this.params, ...this.m, ...this.v]) t.dispose()
    this.params = []
    this.m = []
    this.v = []
    this.t = 0
    this.beta1Power = 1
    this.beta2Power = 1
  }

  dispose(): void {
    this.disposeState()
  }
}
