// Training steps/s on worker threads (training.microBatches) against one thread, side by side in one run:
// `npm run bench:threads` (= `npx tsx bench/threads.ts`).
//  - the MLP 784-128-10 and the CNN (conv 8×3×3 -> maxpool 2 -> dense 10) at batch 64 with SGD, as issue 20 sets them;
//  - per model: today's step (microBatches 1), and microBatches 2 on 1 and on 2 threads: TrainingSession.run
//    alone (no checkpoints, no hashing), each session warmed up first (worker start-up not timed);
//  - repetitions alternate between the three, and each figure is the median with the min-max spread: on a shared
//    machine other processes' load moves single runs a lot;
//  - beside steps/s, the cores the process used over those runs (CPU time of all its threads / wall time): on a
//    busy machine the second thread only helps if the scheduler gives the process a second core;
//  - the 1- and 2-thread sessions end at the same step, and their states must be the same bits.
// BENCH_REPS (default 5) and BENCH_STEPS_SCALE (default 1) size it.
import os from 'node:os'
import {pathToFileURL} from 'node:url'

import {selectBackend, runtimeIdString} from '../src/ml/backend/index.js'
import {checkpointHash} from '../src/ml/checkpoint/checkpointHash.js'
import {encodeCheckpoint} from '../src/ml/checkpoint/encodeCheckpoint.js'
import {initialCheckpoint} from '../src/ml/checkpoint/initialCheckpoint.js'
import {parseJobSpec} from '../src/ml/spec/parseJobSpec.js'
import type {JobSpec} from '../src/ml/spec/schema.js'
import {TrainingSession} from '../src/ml/train/trainingSession.js'

const models = {
  'MLP 784-128-10': {inputShape: '[784]', layers: '[{type: dense, units: 128, activation: relu}, {type: dense, units: 10, activation: softmax}]', steps: 300},
  'CNN conv8-3x3/pool/dense10': {
    inputShape: '[28, 28, 1]',
    layers: '[{type: conv2d, filters: 8, kernelSize: 3, activation: relu}, {type: maxPooling2d, poolSize: 2}, {type: flatten}, {type: dense, units: 10, activation: softmax}]',
    steps: 100,
  },
} as const

function job(model: (typeof models)[keyof typeof models], microBatches: number): JobSpec {
  return parseJobSpec(`name: bench-threads
model: {inputShape: ${model.inputShape}, layers: ${model.layers}}
dataset: {name: mnist, trainLimit: 10000, testLimit: 100}
training: {steps: 100000, batchSize: 64, optimizer: {type: sgd, learningRate: 0.05}, seed: 1, microBatches: ${microBatches}}
payment: {maxPrice: "0.00001"}`)
}

type Spread = {median: number; min: number; max: number}
const spread = (values: number[]): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  return {median: sorted[Math.floor(sorted.length / 2)] as number, min: sorted[0] as number, max: sorted[sorted.length - 1] as number}
}

export type ThreadsBenchRow = {
  model: string
  single: Spread
  oneThread: Spread
  twoThreads: Spread
  /** Cores used by the process while each session ran (CPU time of all threads / wall time), over all its runs. */
  cores: [number, number, number]
  speedUp: number
  sameBits: boolean
}

/**
 * Steps/s of each session, `reps` times `steps` steps, alternating, and the cores the process used during each
 * session's runs; the sessions are warmed up first.
 */
async function measure(sessions: TrainingSession[], steps: number, reps: number): Promise<{rates: number[][]; cores: number[]}> {
  for (const session of sessions) await session.run(session.step + Math.ceil(steps / 5))
  const rates: number[][] = sessions.map(() => [])
  const cpuMicros = sessions.map(() => 0)
  const wallMicros = sessions.map(() => 0)
  for (let r = 0; r < reps; r++)
    for (const [i, session] of sessions.entries()) {
      const cpu = process.cpuUsage()
      const started = performance.now()
      await session.run(session.step + steps) // reads the last loss back, so the work is done
      const wall = performance.now() - started
      const used = process.cpuUsage(cpu)
      rates[i]!.push(steps / (wall / 1000))
      cpuMicros[i]! += used.user + used.system
      wallMicros[i]! += wall * 1000
    }
  return {rates, cores: cpuMicros.map((cpu, i) => cpu / wallMicros[i]!)}
}

export async function benchThreads(reps = 5, scale = 1): Promise<{runtime: string; rows: ThreadsBenchRow[]}> {
  const runtime = await selectBackend('wasm')
  const rows: ThreadsBenchRow[] = []
  for (const [name, model] of Object.entries(models)) {
    const single = new TrainingSession(job(model, 1), {threads: 1})
    const oneThread = new TrainingSession(job(model, 2), {threads: 1})
    const twoThreads = new TrainingSession(job(model, 2), {threads: 2})
    const sessions = [single, oneThread, twoThreads]
    try {
      for (const session of sessions) session.load(initialCheckpoint(session.spec))
      const {rates, cores} = await measure(sessions, Math.round(model.steps * scale), reps)
      const [a, b, c] = rates
      if (twoThreads.workerThreads !== 2) throw new Error(`${name}: the 2-thread session ran on ${twoThreads.workerThreads} thread(s)`)
      const hash = async (session: TrainingSession) => checkpointHash(encodeCheckpoint(await session.snapshot()))
      const sameBits = (await hash(oneThread)) === (await hash(twoThreads))
      const [s1, s2, s3] = [spread(a!), spread(b!), spread(c!)]
      rows.push({model: name, single: s1, oneThread: s2, twoThreads: s3, cores: cores as [number, number, number], speedUp: s3.median / s2.median, sameBits})
    } finally {
      for (const session of sessions) session.dispose()
    }
  }
  return {runtime: runtimeIdString(runtime), rows}
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const reps = Number(process.env.BENCH_REPS ?? 5)
  const scale = Number(process.env.BENCH_STEPS_SCALE ?? 1)
  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ')
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; load average before: ${load()}`)
  const {runtime, rows} = await benchThreads(reps, scale)
  console.log(`training steps/s on ${runtime}, batch 64, sgd, median [min-max] of ${reps} alternating runs`)
  const cell = (s: Spread) => `${s.median.toFixed(0)} [${s.min.toFixed(0)}-${s.max.toFixed(0)}]`.padStart(18)
  console.log(`${'model'.padEnd(28)} ${'mb=1, 1 thread'.padStart(18)} ${'mb=2, 1 thread'.padStart(18)} ${'mb=2, 2 threads'.padStart(18)}  speed-up  same bits  cores used (mb=1 / 1 / 2 threads)`)
  for (const r of rows)
    console.log(
      `${r.model.padEnd(28)} ${cell(r.single)} ${cell(r.oneThread)} ${cell(r.twoThreads)}  ${`${r.speedUp.toFixed(2)}×`.padStart(8)}  ${(r.sameBits ? 'yes' : 'NO').padEnd(9)}  ${r.cores.map((c) => c.toFixed(2)).join(' / ')}`,
    )
  console.log(`load average after: ${load()} (on a shared machine, read the spread)`)
  if (rows.some((r) => !r.sameBits)) process.exitCode = 1
}
