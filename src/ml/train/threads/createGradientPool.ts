import {createRequire} from 'node:module'
import path from 'node:path'
import {Worker} from 'node:worker_threads'

import {packageRoot} from '../../../util/packageRoot.js'
import {GradientWorkerError} from '../errors.js'
import type {MicroBatch} from '../microBatches.js'
import type {GradientReply, GradientRequest, GradientWorkerData, MicroBatchResult} from './gradientProtocol.js'

export type GradientPoolStatus = 'idle' | 'starting' | 'started' | 'stopping' | 'stopped'

export type GradientPoolOptions = GradientWorkerData & {
  /** Worker threads to start (at least 1). */
  threads: number
}

/** Worker threads that compute micro-batch gradients (see {@link createGradientPool}). */
export type GradientPool = {
  readonly threads: number
  readonly status: GradientPoolStatus
  /** Starts the workers and waits until each has its backend ready; a second call returns the same promise. */
  start(): Promise<void>
  /**
   * The loss and gradients of each micro-batch of step `step` from `weights` (checkpoint order), in index order.
   * The j-th micro-batch given goes to worker j mod threads. Their buffers are transferred (unusable after).
   * A failure stops the pool.
   */
  gradients(step: number, weights: readonly Float32Array[], microBatches: readonly MicroBatch[]): Promise<MicroBatchResult[]>
  /** Terminates every worker; safe twice, during start and after a failed one. */
  stop(): Promise<void>
}

/**
 * A pool of gradient worker threads (src/ml/train/threads/gradientWorker.ts), one lifecycle behind one factory:
 * idle -> starting -> started -> stopping -> stopped. A worker is unref'd while it has no request in flight, so
 * a pool someone forgot to stop never keeps the process alive; every failure (a worker that throws, fails to
 * start or exits) rejects the step with a GradientWorkerError and stops the pool.
 */
export function createGradientPool(options: GradientPoolOptions): GradientPool {
  const {threads, ...data} = options
  let status: GradientPoolStatus = 'idle'
  let workers: GradientThread[] = []
  let starting: Promise<void> | undefined
  let stopping: Promise<void> | undefined

  const stop = (): Promise<void> => {
    if (stopping) return stopping
    status = 'stopping'
    const all = workers
    stopping = Promise.all(all.map((w) => w.terminate())).then(() => {
      status = 'stopped'
    })
    return stopping
  }

  const start = (): Promise<void> => {
    if (starting) return starting
    if (status !== 'idle') return Promise.reject(new GradientWorkerError(`gradient pool: expected idle to start, is ${status}`))
    status = 'starting'
    workers = Array.from({length: threads}, () => new GradientThread(startWorker(data)))
    starting = Promise.all(workers.map((w) => w.ready())).then(
      () => {
        if (status === 'starting') status = 'started'
      },
      async (error: unknown) => {
        await stop()
        throw error
      },
    )
    return starting
  }

  const gradients = async (step: number, weights: readonly Float32Array[], microBatches: readonly MicroBatch[]): Promise<MicroBatchResult[]> => {
    if (status !== 'started') throw new GradientWorkerError(`gradient pool: expected started, is ${status}`)
    try {
      const replies = await Promise.all(
        workers.map((worker, w) => {
          const mine = microBatches.filter((_, j) => j % workers.length === w)
          if (mine.length === 0) return []
          // each worker gets its own copy of the weights: a transferred buffer is gone from the sender
          const copies = weights.map((values) => values.slice())
          const transfer = [...copies, ...mine.flatMap((micro) => [micro.x, micro.y])].map((values) => values.buffer as ArrayBuffer)
          return worker.step({type: 'step', step, weights: copies, microBatches: mine}, transfer)
        }),
      )
      return replies.flat().sort((a, b) => a.index - b.index)
    } catch (error) {
      await stop()
      throw error
    }
  }

  return {
    threads,
    get status() {
      return status
    },
    start,
    gradients,
    stop,
  }
}

/**
 * Starts the worker entry: the compiled dist/ml/train/threads/gradientWorker.js (found from the package root, as
 * this code may run from a chunk of the CLI's bundle elsewhere in dist/), or under tsx (tests, benches) the
 * TypeScript source through tsx's loader, registered inside the worker because Node 20 does not apply the
 * parent's --import hooks to a worker's entry module.
 */
function startWorker(data: GradientWorkerData): Worker {
  const here = import.meta.url
  if (!here.endsWith('.ts')) return new Worker(path.join(packageRoot, 'dist', 'ml', 'train', 'threads', 'gradientWorker.js'), {workerData: data})
  const entry = new URL('./gradientWorker.ts', here).href
  // resolved here: the worker's eval'd bootstrap has no module of its own to resolve a package from
  const tsx = createRequire(here).resolve('tsx/esm/api')
  const bootstrap = `require(${JSON.stringify(tsx)}).register(); import(${JSON.stringify(entry)})`
  return new Worker(bootstrap, {eval: true, workerData: data})
}

/** One worker and its one request in flight (ref'd only while there is one). */
class GradientThread {
  private pending: {resolve: (reply: GradientReply) => void; reject: (error: Error) => void} | undefined
  private exited = false

  constructor(private readonly worker: Worker) {
    worker.unref()
    worker.on('message', (reply: GradientReply) => this.settle((p) => p.resolve(reply)))
    worker.on('error', (error: Error) => this.settle((p) => p.reject(new GradientWorkerError(`gradient worker failed: ${error.message.split('\n')[0]}`, {cause: error}))))
    worker.on('exit', (code: number) => {
      this.exited = true
      this.settle((p) => p.reject(new GradientWorkerError(`gradient worker exited (code ${code}) before it answered`)))
    })
  }

  /** Waits for the worker's first message: ready, or why it could not start. */
  async ready(): Promise<void> {
    const reply = await this.next()
    if (reply.type !== 'ready') throw new GradientWorkerError(`gradient worker did not start: ${reply.type === 'failed' ? reply.message : reply.type}`)
  }

  async step(request: GradientRequest, transfer: ArrayBuffer[]): Promise<MicroBatchResult[]> {
    const answer = this.next()
    this.worker.postMessage(request, transfer)
    const reply = await answer
    if (reply.type === 'done') return reply.results
    throw new GradientWorkerError(`gradient worker failed at step ${request.step}: ${reply.type === 'failed' ? reply.message : `unexpected ${reply.type}`}`)
  }

  async terminate(): Promise<void> {
    if (!this.exited) await this.worker.terminate()
  }

  private next(): Promise<GradientReply> {
    if (this.exited) return Promise.reject(new GradientWorkerError('gradient worker has exited'))
    if (this.pending) return Promise.reject(new GradientWorkerError('gradient worker: a request is already in flight'))
    this.worker.ref()
    return new Promise((resolve, reject) => {
      this.pending = {resolve, reject}
    })
  }

  private settle(act: (pending: NonNullable<GradientThread['pending']>) => void): void {
    const {pending} = this
    this.pending = undefined
    if (!this.exited) this.worker.unref()
    if (pending) act(pending)
  }
}
