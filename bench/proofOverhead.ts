// The cost of the proof: trainJob (a canonical checkpoint encoded, hashed and stored every k steps) against the
// same TrainingSession run with no checkpoints, side by side, repetitions alternating:
// `npx tsx bench/proofOverhead.ts [job ...]` (default: every fixture on its own data, the transformer included).
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {runtimeIdString, selectBackend} from '../src/ml/backend/index.js'
import {initialCheckpoint} from '../src/ml/checkpoint/initialCheckpoint.js'
import {loadLocalJob} from '../src/ml/data/loadLocalJob.js'
import {evaluateCheckpoint} from '../src/ml/evaluate/evaluateCheckpoint.js'
import {trainJob, TrainingSession} from '../src/ml/train/index.js'
import {createLocalStore} from '../src/store/index.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

export type ProofOverheadRow = {job: string; steps: number; checkpoints: number; withProof: number; withoutProof: number; overhead: number; finalTestLoss: number; finalTestAccuracy: number}

export async function benchProofOverhead(jobs: string[], repetitions = 3): Promise<{runtime: string; rows: ProofOverheadRow[]}> {
  const runtime = runtimeIdString(await selectBackend('wasm'))
  const rows: ProofOverheadRow[] = []
  for (const job of jobs) {
    const spec = await loadLocalJob(path.resolve(repoRoot, job))
    const {steps} = spec.training
    const withProof: number[] = []
    const withoutProof: number[] = []
    let last: Awaited<ReturnType<typeof trainJob>> | undefined
    let store = createLocalStore(await mkdtemp(path.join(tmpdir(), 'gensyn-bench-proof-')))
    for (let r = 0; r < repetitions; r++) {
      const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-bench-proof-'))
      store = createLocalStore(dir)
      let started = performance.now()
      last = await trainJob({spec, store})
      withProof.push(steps / ((performance.now() - started) / 1000))
      const session = new TrainingSession(spec)
      session.load(initialCheckpoint(spec))
      started = performance.now()
      await session.run(steps)
      withoutProof.push(steps / ((performance.now() - started) / 1000))
      session.dispose()
      if (r < repetitions - 1) await rm(dir, {recursive: true, force: true})
    }
    const final = await evaluateCheckpoint({spec, checkpoint: await store.get(last!.checkpoints.at(-1)!.hash)})
    const a = median(withProof)
    const b = median(withoutProof)
    rows.push({job: spec.name, steps, checkpoints: last!.checkpoints.length, withProof: a, withoutProof: b, overhead: b / a - 1, finalTestLoss: final.testLoss, finalTestAccuracy: final.testAccuracy})
  }
  return {runtime, rows}
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const jobs = process.argv.length > 2 ? process.argv.slice(2) : ['fixtures/jobs/sums-transformer.yaml', 'fixtures/jobs/weather-csv.yaml', 'fixtures/jobs/iris-npz.yaml', 'fixtures/jobs/penguins-parquet.yaml']
  const {runtime, rows} = await benchProofOverhead(jobs)
  console.log(`proof overhead on ${runtime} (median of 3, steps/s)`)
  console.log('job               steps  ckpts  with proof  without  overhead  final test loss  accuracy')
  for (const row of rows)
    console.log(
      [row.job.padEnd(16), String(row.steps).padStart(6), String(row.checkpoints).padStart(6), row.withProof.toFixed(1).padStart(11), row.withoutProof.toFixed(1).padStart(8), `${(row.overhead * 100).toFixed(1)} %`.padStart(9), row.finalTestLoss.toFixed(3).padStart(16), (Number.isNaN(row.finalTestAccuracy) ? '-' : row.finalTestAccuracy.toFixed(3)).padStart(9)].join(' '),
    )
}
