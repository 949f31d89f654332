import type {Hex} from 'viem'
import type {BackendChoice, RuntimeId, WasmVariant} from '../ml/backend/runtimeId.js'
import {selectBackend} from '../ml/backend/selectBackend.js'
import {encodeCheckpoint} from '../ml/checkpoint/encodeCheckpoint.js'
import type {Checkpoint} from '../ml/checkpoint/types.js'
import type {JobSpec} from '../ml/spec/schema.js'
import {TrainingAbortedError} from '../ml/train/errors.js'
import {startCheckpoint} from '../ml/train/startCheckpoint.js'
import type {CheckpointRef} from '../ml/train/trainJob.js'
import {responsiveYieldMs, TrainingSession} from '../ml/train/trainingSession.js'
import type {ProofManifest} from '../ml/checkpoint/manifest.js'
import type {BlobStore} from '../store/types.js'

/** What every strategy gets: the job, the store, the cheater's seed and the caller's hooks. */
export type StrategyContext = {
  spec: JobSpec
  store: BlobStore
  backend: BackendChoice
  wasmVariant: WasmVariant | undefined
  /** The cheater's own randomness (u32). */
  seed: number
  copyFrom: Hex | undefined
  /** A split task's start: its parent's final checkpoint (trainJob's `start`). */
  start: {hash: Hex} | undefined
  onStep: ((step: number, loss: number) => void) | undefined
  onCheckpoint: ((checkpoint: CheckpointRef) => void | Promise<void>) | undefined
  signal: AbortSignal | undefined
}

/** What a strategy hands back; cheat() stores the manifest (unless given) and builds the TrainResult. */
export type StrategyOutcome = {
  checkpoints: CheckpointRef[]
  runtime: RuntimeId
  /** Batch loss of the last training step run (NaN when none ran). */
  finalLoss: number
  /** Training steps actually run (each a forward, backward and update on one batch). */
  trainedSteps: number
  /** Segments whose committed end is not what replaying their committed start gives. */
  fakedSegments: number[]
  /** A ready manifest (copy); otherwise cheat() builds the usual one from `checkpoints`. */
  manifest?: ProofManifest
}

export function throwIfAborted(signal: AbortSignal | undefined, step: number): void {
  if (signal?.aborted) throw new TrainingAbortedError(step)
}

/** Stores committed checkpoints in order, reporting each to onCheckpoint like trainJob does. */
export class CommittedCheckpoints {
  readonly refs: CheckpointRef[] = []
  constructor(private readonly context: StrategyContext) {}

  async commit(checkpoint: Checkpoint): Promise<CheckpointRef> {
    const hash = await this.context.store.put(encodeCheckpoint(checkpoint))
    return this.commitRef({step: checkpoint.step, hash})
  }

  async commitRef(ref: CheckpointRef): Promise<CheckpointRef> {
    this.refs.push(ref)
    await this.context.onCheckpoint?.(ref)
    return ref
  }
}

/**
 * A training session on the context's backend, loaded with the task's honest start (the step-0 state, or a
 * split task's parent's final checkpoint), that counts the steps it runs. Dispose it when done.
 */
export class CountingSession {
  /** What a strategy reports once it has committed its checkpoints: this session's runtime, loss and step count. */
  outcome(committed: CommittedCheckpoints, fakedSegments: number[]): StrategyOutcome {
    return {checkpoints: committed.refs, runtime: this.runtime, finalLoss: this.lastLoss, trainedSteps: this.trainedSteps, fakedSegments}
  }

  trainedSteps = 0
  lastLoss = Number.NaN
  private constructor(
    readonly session: TrainingSession,
    readonly runtime: RuntimeId,
    private readonly context: StrategyContext,
  ) {}

  static async open(context: StrategyContext, make: (spec: JobSpec) => TrainingSession = (spec) => new TrainingSession(spec)): Promise<CountingSession> {
    const runtime = await selectBackend(context.backend, {wasmVariant: context.wasmVariant})
    const {state} = await startCheckpoint({spec: context.spec, store: context.store, start: context.start})
    const session = make(context.spec)
    session.load(state)
    return new CountingSession(session, runtime, context)
  }

  get step(): number {
    return this.session.step
  }

  /** Trains up to `toStep`, calling `onBoundary` after each step in `stopAt`. */
  async run(toStep: number, options: {stopAt?: ReadonlySet<number>; onBoundary?: (step: number) => Promise<void>} = {}): Promise<void> {
    const from = this.session.step
    const loss = await this.session.run(toStep, {...options, onStep: this.context.onStep, signal: this.context.signal, yieldEveryMs: responsiveYieldMs})
    this.trainedSteps += Math.max(0, toStep - from)
    if (toStep > from) this.lastLoss = loss
  }

  snapshot(): Promise<Checkpoint> {
    return this.session.snapshot()
  }

  load(checkpoint: Checkpoint): void {
    this.session.load(checkpoint)
  }

  dispose(): void {
    this.session.dispose()
  }
}
