import {writeFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {execa} from 'execa'
import {dump} from 'npyjs'

import {samplesFor} from '../../src/ml/data/samplesFor.js'
import type {JobSpec} from '../../src/ml/spec/index.js'
import {lossOf} from '../../src/ml/spec/schema.js'
import {batchIndices} from '../../src/ml/train/index.js'
import type {StepPlan} from './stepPlan.js'

/** Debian's PyTorch installs for the system interpreter, not for a pyenv `python3` earlier on PATH. */
export const systemPython = '/usr/bin/python3'

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'peer_torch.py')

export type TorchAnswer = {torch: string; blas: string; device: string; runs: {threads: number; stepsPerSecond: number[]}[]} | {unsupported: string}

/** Where PyTorch runs: the interpreter (one that imports torch), the script, and the device ('cuda' for bench:gpu). */
export type TorchOptions = {python?: string; script?: string; device?: 'cpu' | 'cuda'}

/** Variables the bench sets itself, or that must not reach PyTorch at all. */
const controlled = new Set(['OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE', 'OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS'])

/**
 * The environment PyTorch runs in at `threads` threads: ours without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE,
 * which, set as on the project's machines, make OpenBLAS pick kernels that slow PyTorch's step severalfold; and
 * OpenMP's and OpenBLAS's thread counts set to `threads` (a generic-BLAS PyTorch build, like Debian's, cannot
 * set OpenBLAS's own pool, which otherwise takes every core).
 */
function torchEnv(threads: number): Record<string, string> {
  const env: Record<string, string> = {OPENBLAS_NUM_THREADS: String(threads), OMP_NUM_THREADS: String(threads)}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !controlled.has(key)) env[key] = value
  return env
}

async function writeNpy(file: string, data: Float32Array | Int32Array, shape: number[]): Promise<string> {
  await writeFile(file, new Uint8Array(dump(data, shape)))
  return file
}

/** The job's training rows and every step's batch rows (batchIndices, as gensyn's step reads them), as .npy files in `dir`. */
async function exportData(spec: JobSpec, plan: StepPlan, dir: string) {
  const samples = samplesFor(spec, 'train')
  const {batchSize, seed} = spec.training
  const steps = plan.warmupSteps + plan.repeats * plan.timedSteps
  const indices = new Int32Array(steps * batchSize)
  for (let step = 0; step < steps; step++) indices.set(batchIndices({seed, step, batchSize, datasetSize: samples.count}), step * batchSize)
  const targets =
    samples.task === 'classification'
      ? await writeNpy(path.join(dir, 'targets.npy'), samples.labels, [samples.count, samples.positions])
      : await writeNpy(path.join(dir, 'targets.npy'), samples.values, [samples.count, samples.outputs])
  return {
    features: await writeNpy(path.join(dir, 'features.npy'), samples.features, [samples.count, samples.featureSize]),
    targets,
    indices: await writeNpy(path.join(dir, 'indices.npy'), indices, [steps, batchSize]),
    classes: samples.task === 'classification' ? samples.classes : undefined,
  }
}

/** Whether the system interpreter can import torch. */
export async function torchAvailable(options: TorchOptions = {}): Promise<boolean> {
  const check = options.device === 'cuda' ? 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' : 'import torch'
  const probe = await execa(options.python ?? systemPython, ['-c', check], {reject: false, env: torchEnv(1), extendEnv: false})
  return probe.exitCode === 0
}

type ScriptAnswer = {torch: string; blas: string; device: string; seconds: number[]} | {unsupported: string}

/** One run of bench/peer_torch.py at `threads` threads, in its own process (thread pools are sized at load). */
async function runScript(config: object, dir: string, threads: number, options: TorchOptions): Promise<ScriptAnswer> {
  const configFile = path.join(dir, `config-${threads}.json`)
  await writeFile(configFile, JSON.stringify({...config, threads, device: options.device ?? 'cpu'}))
  const run = await execa(options.python ?? systemPython, [options.script ?? script, configFile], {reject: false, env: torchEnv(threads), extendEnv: false})
  if (run.exitCode !== 0) throw new Error(`peer_torch.py exited with ${run.exitCode}: ${String(run.stderr).slice(-800)}`)
  return JSON.parse(String(run.stdout).trim().split('\n').at(-1) ?? '{}') as ScriptAnswer
}

/**
 * PyTorch's steps/s in each timed window of `plan`, at each of `threads`, training the same model on the same
 * rows, batches, optimizer, schedule and clipping (bench/peer_torch.py), or why it cannot.
 */
export async function measureTorch(spec: JobSpec, plan: StepPlan, dir: string, threads: number[], options: TorchOptions = {}): Promise<TorchAnswer> {
  const data = await exportData(spec, plan, dir)
  const {optimizer, schedule, steps, clipNorm, seed, batchSize} = spec.training
  const config = {model: spec.model, loss: lossOf(spec), optimizer, schedule, steps, clipNorm, seed, batchSize, ...data, ...plan}
  const runs: {threads: number; stepsPerSecond: number[]}[] = []
  let versions = {torch: '', blas: '', device: ''}
  for (const n of threads) {
    const answer = await runScript(config, dir, n, options)
    if ('unsupported' in answer) return answer
    versions = {torch: answer.torch, blas: answer.blas, device: answer.device}
    runs.push({threads: n, stepsPerSecond: answer.seconds.map((s) => plan.timedSteps / s)})
  }
  return {...versions, runs}
}
