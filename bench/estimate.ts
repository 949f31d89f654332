// The work estimate against measurement, for every fixture job: `npx tsx bench/estimate.ts`
// (`npm run bench:estimate`).
//  - estimated FLOPs per step (estimateWork: the model unrolled into kernel calls, nothing run) against the
//    FLOPs an instrumented run counts (measureWork: real TrainingSession steps on MNIST with every kernel of
//    the backend wrapped), by operation class, and the ratio;
//  - the task's work units, and the wall time per step on each backend that loads (wasm always, cpu, gpu
//    only when @tensorflow/tfjs-node-gpu loads), timed unwrapped after the counted steps: work units per
//    second is the throughput a solver on that backend delivers, the figure the training deadline assumes
//    a floor for (minWorkUnitsPerSecond, docs/market.md section 5).
// BENCH_STEPS=n sets the timed steps on wasm and gpu (default 40; cpu gets a quarter, it is ~30x slower).
import {cpus} from 'node:os'
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {type BackendName, runtimeIdString, selectBackend} from '../src/ml/backend/index.js'
import {estimateWork, type WorkEstimate} from '../src/ml/estimate/estimateWork.js'
import {measureWork, type WorkMeasurement} from '../src/ml/estimate/measureWork.js'
import {opClasses} from '../src/ml/estimate/workTable.js'
import {loadLocalJob} from '../src/ml/data/loadLocalJob.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export type EstimateBenchRow = {
  job: string
  backend: string
  estimate: WorkEstimate
  measured: WorkMeasurement
  /** estimated / measured FLOPs per step (1 = exact). */
  ratio: number
  /** The worst ratio of any one operation class that either side counted. */
  worstClassRatio: number
  workUnitsPerSecond: number
}

export type EstimateBench = {rows: EstimateBenchRow[]; backends: {name: BackendName; runtime?: string; skipped?: string}[]}

/** Estimates and measures every job on every backend that loads. */
export async function benchEstimate(
  jobs = readdirSync(path.join(repoRoot, 'fixtures/jobs'))
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => path.join('fixtures/jobs', name)),
  timedSteps = Number(process.env.BENCH_STEPS ?? 40),
): Promise<EstimateBench> {
  const backends: EstimateBench['backends'] = []
  for (const name of ['wasm', 'cpu', 'gpu'] as const) {
    try {
      backends.push({name, runtime: runtimeIdString(await selectBackend(name))})
    } catch (error) {
      backends.push({name, skipped: error instanceof Error ? error.message.split('\n')[0] : String(error)})
    }
  }
  const rows: EstimateBenchRow[] = []
  for (const job of jobs) {
    const spec = await loadLocalJob(path.resolve(repoRoot, job))
    const estimate = estimateWork(spec)
    for (const backend of backends) {
      if (backend.skipped !== undefined) continue
      process.stderr.write(`${spec.name} on ${backend.name}...\n`)
      const steps = backend.name === 'cpu' ? Math.max(2, Math.round(timedSteps / 4)) : timedSteps
      const measured = await measureWork({spec, steps: 2, backend: backend.name, timedSteps: steps})
      const classRatios = opClasses
        .filter((c) => estimate.flopsByClass[c] > 0 || measured.flopsByClass[c] > 0)
        .map((c) => estimate.flopsByClass[c] / measured.flopsByClass[c])
      const worstClassRatio = classRatios.reduce((worst, r) => (Math.abs(r - 1) > Math.abs(worst - 1) ? r : worst), 1)
      rows.push({
        job: spec.name,
        backend: backend.name,
        estimate,
        measured,
        ratio: estimate.flopsPerStep / measured.flopsPerStep,
        worstClassRatio,
        workUnitsPerSecond: estimate.workUnitsPerStep / measured.wallSecondsPerStep,
      })
    }
  }
  return {rows, backends}
}

const millions = (n: number) => (n / 1e6).toFixed(3)

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {rows, backends} = await benchEstimate()
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}`)
  for (const b of backends) console.log(b.skipped === undefined ? `backend ${b.name}: ${b.runtime}` : `backend ${b.name}: skipped (${b.skipped})`)
  console.log('')
  console.log('FLOPs per step (millions), estimated (nothing run) vs measured (instrumented run of 2 steps):')
  console.log('job          backend  matmul est/meas    conv est/meas       elementwise est/meas  transc. est/meas   total est/meas       est/meas  uncounted')
  for (const r of rows) {
    const cells = opClasses.map((c) => `${millions(r.estimate.flopsByClass[c])}/${millions(r.measured.flopsByClass[c])}`.padEnd(c === 'elementwise' ? 21 : 18))
    const uncounted = Object.entries(r.measured.uncounted).map(([k, n]) => `${k} x${n}`).join(', ') || '-'
    console.log(
      `${r.job.padEnd(12)} ${r.backend.padEnd(7)}  ${cells.join(' ')} ${`${millions(r.estimate.flopsPerStep)}/${millions(r.measured.flopsPerStep)}`.padEnd(20)} ${r.ratio.toFixed(4).padStart(8)}  ${uncounted}`,
    )
  }
  console.log('')
  console.log('work units and throughput (wall time per step timed unwrapped, after the counted steps):')
  console.log('job          backend  steps  WU/step   WU (task)   timed steps  ms/step   WU/s')
  for (const r of rows)
    console.log(
      `${r.job.padEnd(12)} ${r.backend.padEnd(7)}  ${String(r.estimate.steps).padStart(5)}  ${r.estimate.workUnitsPerStep.toFixed(3).padStart(7)}  ${String(r.estimate.workUnits).padStart(10)}   ${String(r.measured.timedSteps).padStart(11)}  ${(r.measured.wallSecondsPerStep * 1000).toFixed(2).padStart(7)}  ${r.workUnitsPerSecond.toFixed(1).padStart(6)}`,
    )
  const worst = rows.reduce((w, r) => Math.max(w, Math.abs(r.ratio - 1), Math.abs(r.worstClassRatio - 1)), 0)
  console.log('')
  console.log(`largest deviation of an estimate from its measurement (total or any class): ${(worst * 100).toFixed(2)} % (target: within 10 %)`)
}
