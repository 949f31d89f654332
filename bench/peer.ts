// gensyn's training step against PyTorch on the same CPU, side by side in one run: `npm run bench:peer`
// (docs/benchmarks.md, "Against PyTorch"). Needs Debian's PyTorch (`apt-get install -y python3-torch libopenblas0-pthread`); without it
// the bench says so and exits 0. `npm run bench:peer -- --memory` measures the actor processes' memory instead
// (after `npm run build`: it runs the built CLI's devnet).
//  1. every model (the issue's MLP and CNN, then every fixture job PyTorch can build) is trained by gensyn as
//     `solve --offline` trains (wasm, proof checkpoints stored) and by PyTorch at 1 and 2 threads, on the same
//     rows, batches and optimizer: warm-up untimed, then 3 timed windows of a fixed step count, best of 3;
//  2. for every model below its target, each wasm kernel's share of the training step (tf.profile).
import {mkdtemp, rm} from 'node:fs/promises'
import os, {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import * as tf from '@tensorflow/tfjs'

import {runtimeIdString, selectBackend} from '../src/ml/backend/index.js'
import {kernelShareTable} from './peer/kernelShareTable.js'
import {measureGensyn} from './peer/measureGensyn.js'
import {measureMemory} from './peer/measureMemory.js'
import {measureTorch, systemPython, torchAvailable} from './peer/measureTorch.js'
import {type PeerModel, peerModels} from './peer/peerModels.js'
import {peerFlops} from './peer/peerFlops.js'
import {type PeerSkip, peerTable} from './peer/peerTable.js'
import {peerTarget} from './peer/peerTarget.js'
import {profileKernels} from './peer/profileKernels.js'
import {stepPlan} from './peer/stepPlan.js'
import {type PeerMeasurement, summarizePeerRow} from './peer/summarizePeerRow.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/**
 * Timed steps per repeat, fixed per model kind: a few tenths of a second per window on a quiet 2-core machine for
 * the MLPs and CNNs, and fewer for the transformer, whose steps are ten times dearer on both sides.
 */
const timedSteps = {mlp: 300, cnn: 300, transformer: 100}
const repeats = 3
const threads = [1, 2]

async function measure(model: PeerModel, dir: string): Promise<{row: PeerMeasurement | PeerSkip; blas?: string}> {
  const target = peerTarget(model.spec.model)
  const {plan, spec} = stepPlan(model.spec, timedSteps[target.kind], repeats)
  const torch = await measureTorch(spec, plan, dir, threads)
  if ('unsupported' in torch) return {row: {model: model.name, skipped: `PyTorch side cannot build it: ${torch.unsupported}`}}
  const gensyn = await measureGensyn(spec, plan, path.join(dir, 'store'))
  const {optimizer, batchSize} = spec.training
  const row = {model: model.name, batchSize, optimizer: optimizer.type, flopsPerStep: peerFlops(spec), target: target.ratio, gensyn, torch: torch.runs}
  const rates = (values: number[]) => values.map((v) => v.toFixed(0)).join('/')
  process.stderr.write(`  ${model.name}: ${plan.timedSteps} steps x ${repeats}: gensyn ${rates(gensyn)} steps/s; ${torch.runs.map((r) => `torch ${r.threads}t ${rates(r.stepsPerSecond)}`).join('; ')}\n`)
  return {row, blas: torch.blas}
}

/** A PyTorch on the reference BLAS is several times slower than the one a user would install: say so beside the table. */
function blasLine(blas: string | undefined): string {
  if (blas === undefined) return 'PyTorch BLAS: none loaded'
  if (/openblas|mkl|blis/i.test(blas)) return `PyTorch BLAS: ${blas}`
  return `PyTorch BLAS: ${blas}. WARNING: the reference BLAS, which understates PyTorch severalfold: apt-get install -y libopenblas0-pthread`
}

async function kernelProfiles(rows: (PeerMeasurement | PeerSkip)[], models: PeerModel[]): Promise<string[]> {
  const out: string[] = []
  for (const row of rows) {
    if ('skipped' in row || summarizePeerRow(row).meetsTarget) continue
    const model = models.find((m) => m.name === row.model) as PeerModel
    out.push(kernelShareTable(row.model, await profileKernels(model.spec, model.spec.proof.checkpointInterval, 50)))
  }
  return out
}

async function trainingBench(): Promise<void> {
  if (!(await torchAvailable())) {
    console.log(`bench:peer needs PyTorch for ${systemPython} (Debian's package; a pyenv python3 on PATH does not see it):\n  sudo apt-get install -y python3-torch libopenblas0-pthread\n(the second gives it an optimised BLAS: without it Debian selects the reference one)\nskipped.`)
    return
  }
  const runtime = runtimeIdString(await selectBackend('wasm'))
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  console.log(`gensyn ${runtime}, tfjs ${tf.version.tfjs}; PyTorch via ${systemPython}; ${cpu}, ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(2)}`)
  console.log(`warm-up: the first checkpoint interval; then ${repeats} windows of ${timedSteps.mlp} timed steps (${timedSteps.transformer} for a transformer); best of ${repeats} per side`)
  const listed = await peerModels(path.join(repoRoot, 'fixtures', 'jobs'))
  const models = listed.filter((m): m is PeerModel => 'spec' in m)
  const rows: (PeerMeasurement | PeerSkip)[] = []
  let blas: string | undefined
  for (const entry of listed) {
    if (!('spec' in entry)) {
      rows.push(entry)
      continue
    }
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-peer-'))
    try {
      const measured = await measure(entry, dir)
      rows.push(measured.row)
      blas ??= measured.blas
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  }
  console.log(`${blasLine(blas)}\n\n${peerTable(rows)}`)
  const profiles = await kernelProfiles(rows, models)
  if (profiles.length > 0) console.log(`\nWhere the step goes, for every model below its target (wasm kernels under tf.profile, 50 steps):\n\n${profiles.join('\n\n')}`)
}

if (process.argv.includes('--memory')) await measureMemory(repoRoot)
else await trainingBench()
