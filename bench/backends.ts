// Training throughput per backend, side by side in one run: `npm run bench:backends` (= `npx tsx bench/backends.ts`).
// For each fixture model (MLP, CNN, transformer) and every backend that loads here (wasm, cpu, webgpu; `gensyn
// doctor` says which), it times trainJob (the solver's loop, proof checkpoints included) over the same steps and
// prints steps/s, each backend's ratio to wasm, and the runtime ids (webgpu's names the adapter: lavapipe is a
// CPU, so its figures say nothing about a GPU). Median of BENCH_REPS runs (default 3) after one warm-up; a
// pair whose warm-up took over 10 s is timed once.
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {backendNames, runtimeIdString, selectBackend, type BackendName} from '../src/ml/backend/index.js'
import {loadLocalJob} from '../src/ml/data/loadLocalJob.js'
import type {JobSpec} from '../src/ml/spec/index.js'
import {trainJob} from '../src/ml/train/trainJob.js'
import {createLocalStore} from '../src/store/index.js'
import {table} from './verificationMatrix.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const repetitions = Number(process.env.BENCH_REPS ?? 3)
const jobs = [
  {label: 'MLP', file: 'fixtures/jobs/smoke-mlp.yaml', steps: 200},
  {label: 'CNN', file: 'fixtures/jobs/mnist-cnn.yaml', steps: 40},
  {label: 'transformer', file: 'fixtures/jobs/sums-transformer.yaml', steps: 40},
]
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

async function stepsPerSecond(spec: JobSpec, backend: BackendName, dir: string): Promise<number> {
  const result = await trainJob({spec, store: createLocalStore(dir, {fsync: false}), backend})
  return spec.training.steps / result.seconds
}

/** Times every fixture on every backend that loads; returns the table (steps/s, ratio to wasm) and the runtime ids. */
export async function benchBackends(): Promise<string> {
  const available: {backend: BackendName; id: string}[] = []
  for (const backend of backendNames) {
    try {
      available.push({backend, id: runtimeIdString(await selectBackend(backend))})
    } catch (error) {
      process.stderr.write(`${backend}: skipped (${(error as {shortMessage?: string}).shortMessage ?? String(error)})\n`)
    }
  }
  const rows: string[][] = []
  const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-backends-'))
  try {
    for (const job of jobs) {
      const loaded = await loadLocalJob(path.join(repoRoot, job.file))
      // the same steps on every backend, a checkpoint every quarter
      const spec: JobSpec = {...loaded, training: {...loaded.training, steps: job.steps, stopAt: undefined}, proof: {...loaded.proof, checkpointInterval: job.steps / 4}}
      const rates = new Map<BackendName, number>()
      for (const {backend} of available) {
        const warm = await stepsPerSecond(spec, backend, path.join(dir, `${job.label}-${backend}-warm`))
        // a slow pair (the CNN on cpu: ~1 step/s) is timed once: its spread is small against its duration
        const reps = spec.training.steps / warm > 10 ? 1 : repetitions
        const runs: number[] = []
        for (let r = 0; r < reps; r++) runs.push(await stepsPerSecond(spec, backend, path.join(dir, `${job.label}-${backend}-${r}`)))
        rates.set(backend, median(runs))
        process.stderr.write(`${job.label} on ${backend}: ${median(runs).toFixed(1)} steps/s\n`)
      }
      const wasm = rates.get('wasm')
      rows.push([`${job.label} (${job.steps} steps, batch ${spec.training.batchSize})`, ...available.map(({backend}) => `${(rates.get(backend) as number).toFixed(1)}${wasm && backend !== 'wasm' ? ` (${((rates.get(backend) as number) / wasm).toFixed(2)}x)` : ''}`)])
    }
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
  const header = ['JOB', ...available.map(({backend}) => backend)]
  return `${table(header, rows)}\n${available.map(({backend, id}) => `- ${backend}: ${id}`).join('\n')}`
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`training steps/s with proof checkpoints, median of ${repetitions} (ratio to wasm)`)
  console.log(await benchBackends())
}
