import {availableParallelism} from 'node:os'

import {TrainingThreadsError} from '../errors.js'

let processThreads: number | undefined

/** Sets this process's training thread count (a command's `--threads`); undefined goes back to GENSYN_THREADS or the cores. */
export function setTrainingThreads(threads: number | undefined): void {
  if (threads !== undefined) checkThreads('--threads', threads)
  processThreads = threads
}

/**
 * The worker threads a training session of a job with `microBatches` micro-batches uses: `requested` (a
 * session's own option), else `--threads`, else GENSYN_THREADS, else os.availableParallelism(); at most one per
 * micro-batch. 1 means the micro-batches run in order on the calling thread; N > 1, that the calling thread and
 * N - 1 worker threads share them. The count never changes a result
 * (src/ml/train/microBatches.ts), only how fast it comes.
 *
 * @throws TrainingThreadsError when GENSYN_THREADS is set to anything but a positive integer
 */
export function trainingThreads(microBatches: number, requested?: number): number {
  const wanted = requested ?? processThreads ?? envThreads() ?? availableParallelism()
  return Math.max(1, Math.min(wanted, microBatches))
}

function envThreads(): number | undefined {
  const text = process.env.GENSYN_THREADS
  if (text === undefined || text === '') return undefined
  const threads = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN
  checkThreads('GENSYN_THREADS', threads, text)
  return threads
}

function checkThreads(field: string, threads: number, text = String(threads)): void {
  if (!Number.isSafeInteger(threads) || threads < 1) throw new TrainingThreadsError(`${field}: expected a positive integer (worker threads), got ${JSON.stringify(text)}`)
}
