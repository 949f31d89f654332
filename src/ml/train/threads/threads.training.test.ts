import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path, {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Hex} from 'viem'

import {traceStep} from '../../../dispute/traceStep.js'
import {verifyProof} from '../../../pol/verifyProof.js'
import {createLocalStore} from '../../../store/createLocalStore.js'
import type {BlobStore} from '../../../store/types.js'
import {selectBackend} from '../../backend/selectBackend.js'
import {checkpointHash} from '../../checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../../checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../../checkpoint/initialCheckpoint.js'
import type {Checkpoint} from '../../checkpoint/types.js'
import type {JobSpec} from '../../spec/schema.js'
import {GradientWorkerError, TrainingThreadsError} from '../errors.js'
import {tinyCnnLayers, tinySpec} from '../testSpecs.js'
import {trainJob} from '../trainJob.js'
import {TrainingSession} from '../trainingSession.js'
import {createGradientPool} from './createGradientPool.js'
import {setTrainingThreads, trainingThreads} from './trainingThreads.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..')
const dropoutLayers = '[{type: dense, units: 16, activation: relu}, {type: dropout, rate: 0.25}, {type: dense, units: 10, activation: softmax}]'

/** The state after `steps` steps from the job's initial checkpoint on `threads` threads, and how many threads ran them. */
async function trainOn(spec: JobSpec, steps: number, threads: number, backend: 'wasm' | 'cpu' = 'wasm'): Promise<{state: Checkpoint; workers: number}> {
  await selectBackend(backend)
  const session = new TrainingSession(spec, {threads})
  try {
    session.load(initialCheckpoint(spec))
    await session.run(steps)
    return {state: await session.snapshot(), workers: session.workerThreads}
  } finally {
    session.dispose()
  }
}

const stateHash = (state: Checkpoint) => checkpointHash(encodeCheckpoint(state))

describe('training on worker threads (training.microBatches)', () => {
  let dir: string
  let store: BlobStore
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gensyn-threads-'))
    store = createLocalStore(dir, {fsync: false})
  })
  after(async () => {
    setTrainingThreads(undefined)
    await rm(dir, {recursive: true, force: true})
  })

  for (const [name, spec] of [
    ['an MLP with dropout (adam)', tinySpec({layers: dropoutLayers, microBatches: 4, steps: 5})],
    ['a CNN (sgd)', tinySpec({optimizer: 'sgd', layers: tinyCnnLayers, inputShape: '[28, 28, 1]', microBatches: 4, steps: 5})],
  ] as const) {
    it(`${name}: the weights after 5 steps are bitwise equal on 1, 2 and 4 threads`, async () => {
      const runs = [await trainOn(spec, 5, 1), await trainOn(spec, 5, 2), await trainOn(spec, 5, 4)]
      assert.deepEqual(runs.map((r) => r.workers), [1, 2, 4], 'the 2- and 4-thread runs used that many workers')
      const [one, ...others] = runs.map((r) => r.state)
      for (const other of others) {
        for (const [i, w] of one!.weights.entries()) assert.ok(Buffer.from(w.values.buffer).equals(Buffer.from(other.weights[i]!.values.buffer)), `${w.name} differs`)
        assert.equal(stateHash(other), stateHash(one!))
      }
      assert.notEqual(stateHash(one!), stateHash(initialCheckpoint(spec)), 'training moved the weights')
    })
  }

  it('on the cpu backend too: the workers run cpu, and 1 and 2 threads give the same bits', async () => {
    const spec = tinySpec({layers: dropoutLayers, microBatches: 2, steps: 3})
    const one = await trainOn(spec, 3, 1, 'cpu')
    const two = await trainOn(spec, 3, 2, 'cpu')
    assert.equal(two.workers, 2)
    assert.equal(stateHash(two.state), stateHash(one.state))
  })

  it('averages the micro-batch gradients: 4 micro-batches land within float rounding of one batch (sgd)', async () => {
    const whole = await trainOn(tinySpec({optimizer: 'sgd', layers: dropoutLayers, steps: 3}), 3, 1)
    const split = await trainOn(tinySpec({optimizer: 'sgd', layers: dropoutLayers, steps: 3, microBatches: 4}), 3, 2)
    let largest = 0
    let moved = 0
    const start = initialCheckpoint(tinySpec({optimizer: 'sgd', layers: dropoutLayers, steps: 3}))
    for (const [i, w] of whole.state.weights.entries())
      for (const [j, x] of w.values.entries()) {
        largest = Math.max(largest, Math.abs(x - (split.state.weights[i]!.values[j] as number)))
        moved = Math.max(moved, Math.abs(x - (start.weights[i]!.values[j] as number)))
      }
    // a sum instead of a mean would move the weights 4 times as far: a difference of the size of the moves
    assert.ok(largest < 1e-5, `largest difference ${largest}`)
    assert.ok(moved > 1e-3, `largest move ${moved}`)
  })

  it('a proof trained on 2 threads with 4 micro-batches verifies exactly when replayed on 1 thread', async () => {
    const spec = tinySpec({layers: dropoutLayers, microBatches: 4, steps: 8, interval: 4})
    setTrainingThreads(2)
    assert.equal(trainingThreads(4), 2)
    const trained = await trainJob({spec, store})
    setTrainingThreads(1)
    const report = await verifyProof({spec, store, manifestHash: trained.manifestHash, randomness: `0x${'cd'.repeat(32)}` as Hex, segments: [0, 1], mode: 'exact'})
    assert.equal(report.accepted, true, report.reason)
    assert.equal(report.segments.length, 2)
    for (const segment of report.segments) assert.equal(segment.hashMatch, true, `segment ${segment.segment}`)
    const again = await trainJob({spec, store})
    assert.equal(again.manifestHash, trained.manifestHash, 'one thread commits the same proof')
  })

  it('the dispute trace of a 4-micro-batch step reaches the state 2 threads trained', async () => {
    const spec = tinySpec({layers: dropoutLayers, microBatches: 4, steps: 4, interval: 2})
    const {state: before} = await trainOn(spec, 2, 2)
    const {state: after} = await trainOn(spec, 3, 2)
    const trace = await traceStep({spec, state: before})
    assert.equal(trace.stateHash, stateHash(before))
    assert.equal(trace.nextStateHash, stateHash(after))
  })

  it('resolves the thread count: at most one per micro-batch; GENSYN_THREADS must be a positive integer', () => {
    const saved = process.env.GENSYN_THREADS
    try {
      setTrainingThreads(undefined)
      process.env.GENSYN_THREADS = '3'
      assert.equal(trainingThreads(4), 3)
      assert.equal(trainingThreads(2), 2)
      assert.equal(trainingThreads(1), 1)
      assert.equal(trainingThreads(4, 1), 1, "a session's own count comes first")
      process.env.GENSYN_THREADS = 'two'
      assert.throws(
        () => trainingThreads(4),
        (error: unknown) => error instanceof TrainingThreadsError && error.shortMessage === 'GENSYN_THREADS: expected a positive integer (worker threads), got "two"',
      )
      assert.throws(() => setTrainingThreads(0), /--threads: expected a positive integer \(worker threads\), got "0"/)
    } finally {
      if (saved === undefined) delete process.env.GENSYN_THREADS
      else process.env.GENSYN_THREADS = saved
    }
  })

  it('a worker that fails to start or fails a step rejects with GradientWorkerError and stops the pool', async () => {
    const spec = tinySpec({microBatches: 2})
    const broken = {...spec, model: {...spec.model, layers: [{type: 'lstm'}]}} as unknown as JobSpec
    const unstartable = createGradientPool({spec: broken, backend: 'wasm', wasmVariant: undefined, threads: 1})
    await assert.rejects(unstartable.start(), (error: unknown) => error instanceof GradientWorkerError && /did not start|failed/.test(error.shortMessage))
    assert.equal(unstartable.status, 'stopped')

    const pool = createGradientPool({spec, backend: 'wasm', wasmVariant: undefined, threads: 1})
    await pool.start()
    assert.equal(pool.status, 'started')
    const micro = {index: 1, x: new Float32Array(16 * 784), y: new Float32Array(16 * 10)}
    // one weight tensor too few: the worker cannot build the model's parameters
    const weights = initialCheckpoint(spec).weights.slice(1).map((w) => w.values)
    await assert.rejects(pool.gradients(0, weights, [micro]), (error: unknown) => error instanceof GradientWorkerError && /failed at step 0/.test(error.shortMessage))
    assert.equal(pool.status, 'stopped')
    await pool.stop() // safe twice
  })

  describe('no worker thread keeps the process alive', () => {
    /** Runs test/fixtures/threads-child.ts in `mode`; `onLine` may act on its output lines. Resolves with its exit and output. */
    function runChild(mode: string, onLine: (line: string, child: ReturnType<typeof spawn>) => void = () => {}) {
      const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test', 'fixtures', 'threads-child.ts'), mode], {cwd: root, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => {
        const before = stdout.split('\n').length - 1
        stdout += chunk.toString()
        for (const line of stdout.split('\n').slice(before, -1)) onLine(line, child)
      })
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      return new Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}>((resolve) =>
        child.on('exit', (code, signal) => resolve({code, signal, stdout, stderr})),
      )
    }

    it('exits by itself after training finishes', async () => {
      const {code, stdout, stderr} = await runChild('finish')
      assert.equal(code, 0, stderr)
      assert.match(stdout, /finished 3 checkpoints/)
    })

    it('exits by itself after training fails', async () => {
      const {code, stdout, stderr} = await runChild('error')
      assert.equal(code, 0, stderr)
      assert.match(stdout, /failed boom at step 2/)
    })

    it('exits after Ctrl-C during training', async () => {
      const {code, stdout, stderr} = await runChild('interrupt', (line, child) => line === 'training' && child.kill('SIGINT'))
      assert.equal(code, 0, stderr)
      assert.match(stdout, /stopped TrainingAbortedError/)
    })

    it('exits even when a session is never disposed', async () => {
      const {code, stdout, stderr} = await runChild('forget')
      assert.equal(code, 0, stderr)
      assert.match(stdout, /workers 2\nforgot to dispose/)
    })
  })

})
