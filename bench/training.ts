// Solver training throughput with proof checkpointing vs. a plain tfjs loop, side by side in one run:
// `npx tsx bench/training.ts`.
//  - gensyn: trainJob (explicit-op forward/backward, own adam/sgd, seeded batches, a canonical
//    checkpoint encoded, hashed and stored (fsync'd) every k steps, the manifest at the end);
//  - plain: the same model as a tf.sequential, tf.train.<optimizer>.minimize on the same batches, no
//    checkpoints, no hashing.
// Both on the wasm backend with gensyn's kernel fixes; repetitions alternate between the two.
import * as tf from '@tensorflow/tfjs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {runtimeIdString, selectBackend} from '../src/ml/backend/index.js'
import {loadMnist} from '../src/ml/data/index.js'
import {buildModel, initialWeights} from '../src/ml/model/index.js'
import {loadJobSpec, type JobSpec} from '../src/ml/spec/index.js'
import {batchIndices, trainJob} from '../src/ml/train/index.js'
import {createLocalStore} from '../src/store/index.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export type TrainingBenchRow = {
  job: string
  steps: number
  checkpoints: number
  /** trainJob steps per second, with checkpoints stored. */
  gensynStepsPerSecond: number
  /** Plain tfjs loop steps per second. */
  plainStepsPerSecond: number
  /** gensyn / plain (1 = no overhead). */
  ratio: number
}

async function plainLoop(spec: JobSpec): Promise<number> {
  const {batchSize, seed, steps, optimizer} = spec.training
  const data = loadMnist({split: 'train', limit: spec.dataset.trainLimit})
  const model = buildModel(spec)
  const shapes = model.getWeights().map((w) => w.shape)
  const init = initialWeights(spec).map((w, i) => tf.tensor(w, shapes[i]))
  model.setWeights(init)
  tf.dispose(init)
  const opt = optimizer.type === 'adam' ? tf.train.adam(optimizer.learningRate, optimizer.beta1, optimizer.beta2, optimizer.epsilon) : tf.train.sgd(optimizer.learningRate)
  const started = performance.now()
  for (let step = 0; step < steps; step++) {
    const indices = batchIndices({seed, step, batchSize, datasetSize: data.count})
    const x = new Float32Array(batchSize * 784)
    const y = new Float32Array(batchSize * 10)
    for (const [j, i] of indices.entries()) {
      x.set(data.images.subarray(i * 784, (i + 1) * 784), j * 784)
      y[j * 10 + (data.labels[i] as number)] = 1
    }
    tf.tidy(() => {
      const xs = tf.tensor(x, [batchSize, ...spec.model.inputShape])
      const ys = tf.tensor2d(y, [batchSize, 10])
      opt.minimize(() => tf.mean(tf.metrics.categoricalCrossentropy(ys, model.apply(xs, {training: true}) as tf.Tensor)) as tf.Scalar)
    })
  }
  const seconds = (performance.now() - started) / 1000
  model.dispose()
  opt.dispose()
  return steps / seconds
}

async function gensynLoop(spec: JobSpec, dir: string): Promise<number> {
  const store = createLocalStore(dir)
  const result = await trainJob({spec, store})
  return spec.training.steps / result.seconds
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

/** Measures each job `repetitions` times per loop (alternating, after one warm-up each) and reports medians. */
export async function benchTraining(
  jobs: string[] = ['fixtures/jobs/smoke-mlp.yaml', 'fixtures/jobs/mnist-cnn.yaml'],
  repetitions = 3,
): Promise<{runtime: string; rows: TrainingBenchRow[]}> {
  const runtime = await selectBackend('wasm')
  const rows: TrainingBenchRow[] = []
  for (const job of jobs) {
    const spec = await loadJobSpec(path.resolve(repoRoot, job))
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-train-'))
    try {
      await gensynLoop(spec, path.join(dir, 'warm'))
      await plainLoop(spec)
      const gensyn: number[] = []
      const plain: number[] = []
      for (let r = 0; r < repetitions; r++) {
        gensyn.push(await gensynLoop(spec, path.join(dir, `run${r}`)))
        plain.push(await plainLoop(spec))
      }
      const g = median(gensyn)
      const p = median(plain)
      const checkpoints = Math.ceil(spec.training.steps / spec.proof.checkpointInterval) + 1
      rows.push({job: spec.name, steps: spec.training.steps, checkpoints, gensynStepsPerSecond: g, plainStepsPerSecond: p, ratio: g / p})
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  }
  return {runtime: runtimeIdString(runtime), rows}
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {runtime, rows} = await benchTraining()
  console.log(`training throughput on ${runtime} (median of 3, steps/s)`)
  console.log('job          steps  ckpts   gensyn(proof)   plain tfjs   gensyn/plain')
  for (const r of rows)
    console.log(
      `${r.job.padEnd(12)} ${String(r.steps).padStart(5)}  ${String(r.checkpoints).padStart(5)}   ${r.gensynStepsPerSecond.toFixed(1).padStart(13)}   ${r.plainStepsPerSecond.toFixed(1).padStart(10)}   ${r.ratio.toFixed(2).padStart(12)}`,
    )
}
