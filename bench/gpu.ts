// The GPU bench: `npm run bench:gpu` (= `npx tsx bench/gpu.ts`), or on a host with no Node project the bundle
// that `npm run bench:bundle` builds (bench/bundle/README.md). In one run, on the host's WebGPU adapter:
//  1. repeatability: each fixture trained twice on webgpu from the same seed; are the checkpoint hashes equal?
//  2. training speed side by side: gensyn's solver step (trainJob, proof checkpoints stored) on webgpu and on
//     wasm, and PyTorch on CUDA on the same GPU (bench/peer_torch.py with device cuda), for the same models,
//     batches and optimizers: steps/s, GFLOP/s, and the ratios;
//  3. cross-runtime verification (bench/crossRuntime.ts): thresholds profiled for the webgpu → wasm pair,
//     false rejections over held-out honest replays, subtle cheats, distances per layer type.
// Environment: BENCH_SECTIONS (comma list of repeatability, training, cross-runtime; default all), BENCH_QUICK=1
// (a smoke run), BENCH_OUT_DIR (JSON results, one file per section), BENCH_PYTHON (an interpreter whose torch
// sees CUDA; default python3), BENCH_MODELS (names the models of the first two sections start with), BENCH_JOBS
// (cross-runtime labels: MLP, CNN, transformer), BENCH_WORKERS (cross-runtime seeds over that many processes) and
// BENCH_CROSS_RUNTIME_SECONDS (their time limit), BENCH_CHEAT_SEEDS (held-out seeds that also commit the subtle cheats), BENCH_HELD_OUT_SEEDS (how many held-out seeds). Tables on stdout, progress on stderr.
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import os, {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {runtimeIdString, selectBackend, type BackendName} from '../src/ml/backend/index.js'
import {checkpointHash, encodeCheckpoint, initialCheckpoint} from '../src/ml/checkpoint/index.js'
import {loadLocalJob} from '../src/ml/data/loadLocalJob.js'
import type {JobSpec} from '../src/ml/spec/index.js'
import {runCrossRuntime, type Plan} from './crossRuntime.js'
import {crossRuntimeWorker, runCrossRuntimeParallel, serveCrossRuntimeJobs} from './crossRuntimePool.js'
import {measureGensyn} from './peer/measureGensyn.js'
import {measureTorch, torchAvailable, type TorchOptions} from './peer/measureTorch.js'
import {peerFlops} from './peer/peerFlops.js'
import {mnistSgdJob, referenceModels} from './peer/peerModels.js'
import {stepPlan} from './peer/stepPlan.js'
import {trainSegment} from '../src/ml/train/trainSegment.js'
import {table} from './verificationMatrix.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.env.BENCH_QUICK === '1'
const sections = (process.env.BENCH_SECTIONS ?? 'repeatability,training,cross-runtime').split(',').map((s) => s.trim())
const outDir = process.env.BENCH_OUT_DIR
const torch: TorchOptions = {python: process.env.BENCH_PYTHON ?? 'python3', script: path.join(repoRoot, 'bench', 'peer_torch.py'), device: 'cuda'}
const log = (line: string) => process.stderr.write(`${line}\n`)

/** A model of the training table: a fixture job, or an inline one (the issue's reference shapes and one GPU-sized MLP). */
type Model = {name: string; spec: JobSpec; timedSteps: number}

async function models(): Promise<Model[]> {
  const fixture = async (name: string, timedSteps: number) => ({name, spec: await loadLocalJob(path.join(repoRoot, 'fixtures', 'jobs', `${name}.yaml`)), timedSteps})
  const wide = '\nmodel: {inputShape: [784], layers: [{type: dense, units: 1024, activation: relu}, {type: dense, units: 1024, activation: relu}, {type: dense, units: 10, activation: softmax}]}'
  return [
    ...referenceModels().map((model) => ({...model, timedSteps: 300})),
    // a model a GPU is for (2.45 GFLOP a step): dispatch overhead no longer dominates
    {name: 'mlp-784-1024-1024-10 (batch 256)', spec: mnistSgdJob('mlp-wide', wide, {batchSize: 256, checkpointInterval: 10}), timedSteps: 20},
    await fixture('smoke-mlp', 100),
    await fixture('mnist-cnn', 100),
    await fixture('sums-transformer', 50),
  ]
}

/** Trains `steps` steps of `spec` on webgpu and returns the sha256 of the last checkpoint's bytes. */
async function trainedHash(spec: JobSpec, steps: number): Promise<string> {
  await selectBackend('webgpu')
  return checkpointHash(encodeCheckpoint(await trainSegment(spec, initialCheckpoint(spec), steps)))
}

async function repeatability(list: Model[]) {
  const rows = []
  for (const model of list) {
    const steps = quick ? 5 : 20
    const [a, b] = [await trainedHash(model.spec, steps), await trainedHash(model.spec, steps)]
    rows.push({model: model.name, steps, first: a, second: b, identical: a === b})
    log(`repeatability ${model.name}: ${a === b ? 'identical' : 'DIFFERENT'}`)
  }
  console.log(`\n## Run-to-run repeatability on webgpu (the same seed trained twice)\n\n${table(['MODEL', 'STEPS', 'CHECKPOINT HASH', 'TWICE THE SAME'], rows.map((r) => [r.model, String(r.steps), `${r.first.slice(0, 18)}…`, r.identical ? 'yes' : `NO (${r.second.slice(0, 18)}…)`]))}`)
  return rows
}

const best = (values: number[]) => Math.max(...values)

async function training(list: Model[]) {
  const cuda = await torchAvailable(torch)
  if (!cuda) log(`PyTorch with CUDA not found for ${torch.python}: the PyTorch column stays empty (set BENCH_PYTHON)`)
  const rows = []
  for (const model of list) {
    const {plan, spec} = stepPlan(model.spec, quick ? model.spec.proof.checkpointInterval : model.timedSteps, quick ? 1 : 3)
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-gpu-'))
    try {
      const rate: Partial<Record<BackendName | 'torch', number>> = {}
      for (const backend of ['webgpu', 'wasm'] as const) rate[backend] = best(await measureGensyn(spec, plan, path.join(dir, backend), backend))
      const answer = cuda ? await measureTorch(spec, plan, dir, [1], torch) : undefined
      if (answer && 'runs' in answer) rate.torch = best(answer.runs.flatMap((r) => r.stepsPerSecond))
      const gflop = peerFlops(spec) / 1e9
      rows.push({model: model.name, batch: spec.training.batchSize, gflopPerStep: gflop, stepsPerSecond: rate, torchDevice: answer && 'runs' in answer ? `${answer.device}, torch ${answer.torch}` : answer?.unsupported})
      log(`training ${model.name}: webgpu ${rate.webgpu?.toFixed(1)}, wasm ${rate.wasm?.toFixed(1)}, torch ${rate.torch?.toFixed(1) ?? '-'} steps/s`)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  }
  const f = (x: number | undefined, digits = 1) => (x === undefined ? '-' : x.toFixed(digits))
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`)
  console.log(
    `\n## Training steps/s (proof checkpoints stored; best of the timed windows)\n\n${table(
      ['MODEL', 'BATCH', 'GFLOP/STEP', 'WEBGPU', 'WASM', 'PYTORCH CUDA', 'WEBGPU/PYTORCH', 'WEBGPU/WASM', 'WEBGPU GFLOP/S'],
      rows.map((r) => [r.model, String(r.batch), f(r.gflopPerStep, 4), f(r.stepsPerSecond.webgpu), f(r.stepsPerSecond.wasm), f(r.stepsPerSecond.torch), ratio(r.stepsPerSecond.webgpu, r.stepsPerSecond.torch), ratio(r.stepsPerSecond.webgpu, r.stepsPerSecond.wasm), f((r.stepsPerSecond.webgpu ?? 0) * r.gflopPerStep, 2)]),
    )}\n- PyTorch: ${rows.find((r) => r.torchDevice)?.torchDevice ?? 'not run'}`,
  )
  return rows
}

/** Cross-runtime plans sized for a GPU prover: 200 honest replays per model (50 seeds of 4 segments), subtle cheats on 10 of them. */
const gpuPlans: Plan[] = [
  {label: 'MLP', file: 'fixtures/jobs/smoke-mlp.yaml', prover: 'webgpu', verifiers: ['wasm'], profileSeeds: quick ? 1 : 5, heldOutSeeds: quick ? 1 : 50, cheatSeeds: quick ? 1 : 10},
  {label: 'CNN', file: 'fixtures/jobs/mnist-cnn.yaml', prover: 'webgpu', verifiers: ['wasm'], profileSeeds: quick ? 1 : 5, heldOutSeeds: quick ? 1 : 50, cheatSeeds: quick ? 1 : 10, steps: {steps: quick ? 20 : 200, interval: quick ? 10 : 50}},
  {label: 'transformer', file: 'fixtures/jobs/sums-transformer.yaml', prover: 'webgpu', verifiers: ['wasm'], profileSeeds: quick ? 1 : 5, heldOutSeeds: quick ? 1 : 50, cheatSeeds: quick ? 1 : 10, steps: {steps: quick ? 20 : 200, interval: quick ? 10 : 50}},
]

async function save(name: string, value: unknown): Promise<void> {
  if (!outDir) return
  await mkdir(outDir, {recursive: true})
  await writeFile(path.join(outDir, `${name}.json`), `${JSON.stringify(value, null, 2)}\n`)
}

async function main(): Promise<void> {
  const webgpu = runtimeIdString(await selectBackend('webgpu'))
  const wasm = runtimeIdString(await selectBackend('wasm'))
  console.log(`# gensyn GPU bench\n- webgpu: ${webgpu}\n- wasm: ${wasm}\n- host: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, node ${process.version}`)
  await save('runtimes', {webgpu, wasm, cpu: os.cpus()[0]?.model, cores: os.cpus().length})
  const wanted = process.env.BENCH_MODELS?.split(',').map((m) => m.trim())
  const list = (await models()).filter((m) => !wanted || wanted.some((w) => m.name.startsWith(w)))
  if (sections.includes('repeatability')) await save('repeatability', await repeatability(list.filter((m) => !m.name.includes('batch 256'))))
  if (sections.includes('training')) await save('training', await training(list))
  if (!sections.includes('cross-runtime')) return
  const out = outDir && path.join(outDir, 'cross-runtime.json')
  // BENCH_JOBS also orders the plans (the pool's queue follows it)
  const plans = process.env.BENCH_JOBS ? process.env.BENCH_JOBS.split(',').map((label) => allPlans.find((p) => p.label === label.trim()) as Plan) : allPlans
  if (workers > 1) await runCrossRuntimeParallel(plans, {workers, deadlineSeconds: Number(process.env.BENCH_CROSS_RUNTIME_SECONDS) || undefined, out})
  else await runCrossRuntime(plans, out)
}

// BENCH_WORKERS > 1 runs the cross-runtime seeds in that many processes of this script (bench/crossRuntimePool.ts)
const workers = Number(process.env.BENCH_WORKERS ?? 1)
// the plans as this run sizes them, the same in the parent and in every worker
const sized = (plan: Plan): Plan => ({
  ...plan,
  ...(process.env.BENCH_CHEAT_SEEDS === undefined ? {} : {cheatSeeds: Number(process.env.BENCH_CHEAT_SEEDS)}),
  ...(process.env.BENCH_HELD_OUT_SEEDS === undefined ? {} : {heldOutSeeds: Number(process.env.BENCH_HELD_OUT_SEEDS)}),
})
const allPlans = gpuPlans.map(sized)
if (process.env[crossRuntimeWorker] === '1') await serveCrossRuntimeJobs(allPlans)
else await main()
