import {BaseError, type BaseErrorParameters} from '../../errors/base.js'

/** A checkpoint that does not fit the job (other weights, shapes or optimizer, or the wrong step). */
export class CheckpointMismatchError extends BaseError {
  override name = 'CheckpointMismatchError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'checkpoint-format.md', ...parameters})
  }
}

/** Training stopped by its AbortSignal. */
export class TrainingAbortedError extends BaseError {
  override name = 'TrainingAbortedError'
  readonly step: number
  constructor(step: number) {
    super(`training aborted at step ${step}`)
    this.step = step
  }
}

/** `resume` named a checkpoint that is not the job's checkpoint at that step. */
export class ResumeError extends BaseError {
  override name = 'ResumeError'
}

/**
 * `start` is missing, or is not the checkpoint a split task starts from (another step, another job's state):
 * a task whose range starts above step 0 trains from its parent task's final checkpoint.
 */
export class StartCheckpointError extends BaseError {
  override name = 'StartCheckpointError'
  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, {docsPath: 'market.md', ...parameters})
  }
}

/** GENSYN_THREADS or --threads is not a positive integer. */
export class TrainingThreadsError extends BaseError {
  override name = 'TrainingThreadsError'
  constructor(shortMessage: string) {
    super(shortMessage, {docsPath: 'job-spec.md', exitCode: 2})
  }
}

/** A gradient worker thread failed (it threw, could not start, or exited mid-step): the step did not run. */
export class GradientWorkerError extends BaseError {
  override name = 'GradientWorkerError'
}
