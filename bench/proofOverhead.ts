// The cost of the proof: trainJob (a canonical checkpoint encoded, hashed and stored every k steps) against the
// same TrainingSession built, loaded and run with no checkpoints, in pairs back to back (which one first alternates):
// `npx tsx bench/proofOverhead.ts [job ...]` (default: every fixture on its own data, the transformer included).
// BENCH_REPS sets the repetitions (default 3): a tabular job trains in a fraction of a second, so take more.
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {runtimeIdString, selectBackend} from '../src/ml/backend/index.js'
import {initialCheckpoint} from '../src/ml/checkpoint/initialCheckpoint.js'
import {loadLocalJob} from '../src/ml/data/loadLocalJob.js'
import {evaluateCheckpoint} from '../src/ml/evaluate/evaluateCheckpoint.js'
import type {JobSpec} from '../src/ml/spec/schema.js'
import {trainJob, TrainingSession} from '../src/ml/train/index.js'
import {createLocalStore} from '../src/store/index.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

export type ProofOverheadRow = {
  job: string
  steps: number
  checkpoints: number
  /** Median steps/s of the whole trainJob (set-up, checkpoints, manifest). */
  withProof: number
  /** Median steps/s of the same set-up and steps with no checkpoint stored. */
  withoutProof: number
  /** The median over repetitions of (time with proof / time without − 1), each pair run back to back. */
  overhead: number
  /** The lowest and highest of those per-pair overheads: the machine's spread. */
  spread: [number, number]
  /** Within each trainJob: its time outside the training steps over its time in them (median); no second run to compare with. */
  inRun: number
  finalTestLoss: number
  finalTestAccuracy: number
}

/** The same steps as trainJob with the proof left out: the session built and loaded (timed, as trainJob's is), then trained. */
async function trainWithoutProof(spec: JobSpec): Promise<number> {
  const started = performance.now()
  const session = new TrainingSession(spec)
  session.load(initialCheckpoint(spec))
  await session.run(spec.training.steps)
  const seconds = (performance.now() - started) / 1000
  session.dispose()
  return seconds
}

export async function benchProofOverhead(jobs: string[], repetitions = 3): Promise<{runtime: string; rows: ProofOverheadRow[]}> {
  const runtime = runtimeIdString(await selectBackend('wasm'))
  const rows: ProofOverheadRow[] = []
  for (const job of jobs) {
    const spec = await loadLocalJob(path.resolve(repoRoot, job))
    const {steps} = spec.training
    const pairs: {withProof: number; withoutProof: number; inRun: number}[] = []
    let last: Awaited<ReturnType<typeof trainJob>> | undefined
    let store = createLocalStore(await mkdtemp(path.join(tmpdir(), 'gensyn-bench-proof-')))
    // one unmeasured pair first: the first trainJob of a process starts the store's writer thread
    for (let r = -1; r < repetitions; r++) {
      const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-proof-'))
      store = createLocalStore(dir)
      // alternating which arm runs first, so that a drift in the machine's speed favours neither
      const first = r % 2 === 0 ? 'with' : 'without'
      let withoutProof = first === 'without' ? await trainWithoutProof(spec) : 0
      const started = performance.now()
      last = await trainJob({spec, store})
      const withProof = (performance.now() - started) / 1000
      if (first === 'with') withoutProof = await trainWithoutProof(spec)
      if (r >= 0) pairs.push({withProof, withoutProof, inRun: last.seconds / last.stepSeconds! - 1})
      if (r < repetitions - 1) await rm(dir, {recursive: true, force: true})
    }
    const final = await evaluateCheckpoint({spec, checkpoint: await store.get(last!.checkpoints.at(-1)!.hash)})
    const overheads = pairs.map((pair) => pair.withProof / pair.withoutProof - 1)
    rows.push({
      job: spec.name,
      steps,
      checkpoints: last!.checkpoints.length,
      withProof: median(pairs.map((pair) => steps / pair.withProof)),
      withoutProof: median(pairs.map((pair) => steps / pair.withoutProof)),
      overhead: median(overheads),
      spread: [Math.min(...overheads), Math.max(...overheads)],
      inRun: median(pairs.map((pair) => pair.inRun)),
      finalTestLoss: final.testLoss,
      finalTestAccuracy: final.testAccuracy,
    })
  }
  return {runtime, rows}
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const jobs = process.argv.length > 2 ? process.argv.slice(2) : ['fixtures/jobs/sums-transformer.yaml', 'fixtures/jobs/weather-csv.yaml', 'fixtures/jobs/iris-npz.yaml', 'fixtures/jobs/penguins-parquet.yaml']
  const repetitions = Number(process.env.BENCH_REPS ?? 3)
  const {runtime, rows} = await benchProofOverhead(jobs, repetitions)
  console.log(`proof overhead on ${runtime} (median of ${repetitions} pairs, steps/s)`)
  console.log('job               steps  ckpts  with proof  without  overhead  [spread]          in-run  final test loss  accuracy')
  for (const row of rows)
    console.log(
      [row.job.padEnd(16), String(row.steps).padStart(6), String(row.checkpoints).padStart(6), row.withProof.toFixed(1).padStart(11), row.withoutProof.toFixed(1).padStart(8), `${(row.overhead * 100).toFixed(1)} %`.padStart(9), `[${row.spread.map((x) => (x * 100).toFixed(1)).join(', ')}]`.padEnd(16), `${(row.inRun * 100).toFixed(1)} %`.padStart(7), row.finalTestLoss.toFixed(3).padStart(16), (Number.isNaN(row.finalTestAccuracy) ? '-' : row.finalTestAccuracy.toFixed(3)).padStart(9)].join(' '),
    )
}
