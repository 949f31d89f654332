import * as tf from '@tensorflow/tfjs'
import type {Checkpoint, CheckpointTensor} from '../checkpoint/types.js'
import {type Samples, targetSize, writeTarget} from '../data/samples.js'
import {samplesFor} from '../data/samplesFor.js'
import {modelWeights} from '../model/initialWeights.js'
import {type JobSpec, optimizerStateType} from '../spec/schema.js'
import {batchIndices} from './batchIndices.js'
import {clipByGlobalNorm} from './clipByGlobalNorm.js'
import {CheckpointMismatchError, TrainingAbortedError} from './errors.js'
import {averageInIndexOrder, type MicroBatchGradients, microBatchCount, microBatchGradients, modelOutputShape, splitBatch} from './microBatches.js'
import {optimizerUpdate} from './optimizerUpdate.js'
import {createGradientPool, type GradientPool} from './threads/createGradientPool.js'
import {trainingThreads} from './threads/trainingThreads.js'

export type TrainingSessionOptions = {
  /**
   * Worker threads for the micro-batch gradients (default: trainingThreads(), i.e. --threads, GENSYN_THREADS or
   * the cores, at most training.microBatches). 1 runs everything on this thread. The result is the same bits
   * for every count.
   */
  threads?: number | undefined
}

export type RunOptions = {
  /** Called after each step with the new step count and that step's batch loss (forces a device read). */
  onStep?: ((step: number, loss: number) => void) | undefined
  /** Called after each step that `stopAt` names, before continuing (e.g. to checkpoint). */
  onBoundary?: ((step: number) => void | Promise<void>) | undefined
  stopAt?: ReadonlySet<number> | undefined
  signal?: AbortSignal | undefined
  /**
   * Lets the event loop turn (timers, signals, I/O replies) once this many milliseconds of steps have run since it
   * last did. Without it, steps on one thread run synchronously inside `run` (which operator tracing relies on),
   * and a Ctrl-C, a dead devnet's parent watch or a finished write waits for the next checkpoint, minutes away
   * on a large model.
   */
  yieldEveryMs?: number | undefined
}

/**
 * How long an actor's training or replay keeps its thread before letting signals, timers and I/O replies in
 * (RunOptions.yieldEveryMs): a parent watch, a Ctrl-C and the checkpoint writer's replies wait no longer.
 */
export const responsiveYieldMs = 200

/** One turn of the event loop: timers and I/O callbacks that came due run before the promise resolves. */
const turnEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

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
 * the same code. A step averages the gradients of the job's micro-batches in index order
 * (src/ml/train/microBatches.ts), computed here or on worker threads. Call {@link TrainingSession.dispose} when done.
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
  private pool: GradientPool | undefined

  constructor(
    spec: JobSpec,
    private readonly options: TrainingSessionOptions = {},
  ) {
    this.spec = spec
    this.data = samplesFor(spec, 'train')
    const weights = modelWeights(spec.model)
    this.names = weights.map((w) => w.name)
    this.shapes = weights.map((w) => w.shape)
    this.outputShape = modelOutputShape(spec)
  }

  /** The worker threads this session trains with now (1 when its steps run on this thread). */
  get workerThreads(): number {
    return this.pool?.status === 'started' ? this.pool.threads + 1 : 1
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

  /**
   * Runs steps until the state reaches `toStep`. Returns the last step's loss (NaN when no step ran). On one
   * thread (and with one micro-batch) the steps run synchronously inside this call, which tracing relies on,
   * unless `yieldEveryMs` is given.
   */
  async run(toStep: number, options: RunOptions = {}): Promise<number> {
    if (this.params.length !== this.names.length) throw new CheckpointMismatchError('training session: load a checkpoint first')
    // awaited only when there are workers: on one thread the steps must run synchronously inside this call
    const pool = this.step < toStep ? this.poolForRun() : undefined
    if (pool) await pool.start()
    let loss = Number.NaN
    let turned = performance.now()
    while (this.step < toStep) {
      if (options.yieldEveryMs !== undefined && performance.now() - turned >= options.yieldEveryMs) {
        await turnEventLoop()
        turned = performance.now()
      }
      if (options.signal?.aborted) throw new TrainingAbortedError(this.step)
      const wantLoss = options.onStep !== undefined || this.step + 1 === toStep
      const lossTensor = pool ? await this.threadedStep(pool) : this.trainStep(() => this.gradientsHere(this.step))
      if (wantLoss) loss = ((await lossTensor.data()) as Float32Array)[0] as number
      lossTensor.dispose()
      if (wantLoss) this.lastLoss = loss
      options.onStep?.(this.step, loss)
      if (options.stopAt?.has(this.step)) await options.onBoundary?.(this.step)
    }
    return loss
  }

  /** The worker threads this session trains with (created on first use, not yet started); none on one thread or a backend workers cannot run. */
  private poolForRun(): GradientPool | undefined {
    const threads = trainingThreads(microBatchCount(this.spec), this.options.threads)
    const backend = tf.getBackend()
    if (threads === 1 || (backend !== 'wasm' && backend !== 'cpu')) return undefined
    if (!this.pool) {
      const wasmVariant = backend === 'wasm' ? (tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? 'simd' : 'scalar') : undefined
      // this thread is one of the `threads`: it computes its share of the micro-batches while the workers do theirs
      this.pool = createGradientPool({spec: this.spec, backend, wasmVariant, threads: threads - 1})
    }
    return this.pool
  }

  /** The step's micro-batch gradients computed on this thread, in index order, averaged (inside tf.tidy). */
  private gradientsHere(step: number): MicroBatchGradients {
    const parts = splitBatch(this.spec, this.batch(step)).map((micro) => microBatchGradients(this.spec, this.params, micro, step, this.outputShape))
    return averageInIndexOrder(parts)
  }

  /**
   * One step on `pool.threads + 1` threads: the workers compute their share of the micro-batches while this thread
   * computes every (threads)-th one, from micro-batch 0; the average, in index order, and the update run here.
   */
  private async threadedStep(pool: GradientPool): Promise<tf.Scalar> {
    const step = this.step
    const threads = pool.threads + 1
    const microBatches = splitBatch(this.spec, this.batch(step))
    const weights = this.params.map((w) => w.dataSync() as Float32Array)
    const away = pool.gradients(step, weights, microBatches.filter((micro) => micro.index % threads !== 0))
    // awaited below; if this thread's share throws first, the workers' failure must not go unhandled
    away.catch(() => undefined)
    const here = tf.tidy(() =>
      microBatches.filter((micro) => micro.index % threads === 0).map((micro) => ({index: micro.index, ...microBatchGradients(this.spec, this.params, micro, step, this.outputShape)})),
    )
    try {
      const fromWorkers = new Map((await away).map((r) => [r.index, r]))
      const computedHere = new Map(here.map((part) => [part.index, part]))
      return this.trainStep(() =>
        averageInIndexOrder(
          microBatches.map(({index}) => {
            const result = fromWorkers.get(index)
            if (!result) return computedHere.get(index)!
            return {loss: tf.scalar(result.loss, 'float32'), grads: result.grads.map((g, i) => tf.tensor(g, this.shapes[i], 'float32'))}
          }),
        ),
      )
    } finally {
      tf.dispose(here.flatMap((part) => [part.loss, ...part.grads]))
    }
  }

  /** One optimizer step on batch `this.step` with the gradients `gradients` gives (called inside tf.tidy); returns the batch loss (caller disposes). */
  private trainStep(gradients: () => MicroBatchGradients): tf.Scalar {
    const {spec} = this
    const step = this.step
    const old = [...this.params, ...this.m, ...this.v]
    const state = {params: this.params, m: this.m, v: this.v, beta1Power: this.beta1Power, beta2Power: this.beta2Power}
    const result = tf.tidy(() => {
      const {loss, grads: raw} = gradients()
      const grads = spec.training.clipNorm === undefined ? raw : clipByGlobalNorm(raw, spec.training.clipNorm)
      const next = optimizerUpdate(spec, step, state, grads)
      return {loss, params: next.params, m: next.m, v: next.v, beta1Power: next.beta1Power, beta2Power: next.beta2Power}
    })
    for (const t of old) t.dispose()
    if (spec.training.optimizer.type !== 'sgd') {
      this.t += 1
      this.beta1Power = result.beta1Power
      this.beta2Power = result.beta2Power
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

  /** Frees the tensors and terminates the worker threads (if any). */
  dispose(): void {
    this.disposeState()
    void this.pool?.stop()
    this.pool = undefined
  }
}
