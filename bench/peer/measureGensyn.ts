import type {BackendName} from '../../src/ml/backend/index.js'
import type {JobSpec} from '../../src/ml/spec/index.js'
import {trainJob} from '../../src/ml/train/index.js'
import {createLocalStore} from '../../src/store/index.js'
import type {StepPlan} from './stepPlan.js'

/**
 * gensyn's steps/s in each timed window of `plan`, trained as `solve --offline` trains: trainJob on `backend`
 * (wasm unless named) with a per-step callback (the progress bar's, which reads each step's loss), every proof checkpoint
 * encoded, hashed and stored (fsync'd) in a local store in `storeDir`. A window runs from the callback of its
 * first step to that of its last, so it holds timedSteps / checkpointInterval checkpoint stores.
 */
export async function measureGensyn(spec: JobSpec, plan: StepPlan, storeDir: string, backend: BackendName = 'wasm'): Promise<number[]> {
  const bounds = Array.from({length: plan.repeats + 1}, (_, r) => plan.warmupSteps + r * plan.timedSteps)
  const marks = new Map<number, number>()
  await trainJob({
    spec,
    store: createLocalStore(storeDir),
    backend,
    onStep: (step) => {
      if (bounds.includes(step)) marks.set(step, performance.now())
    },
  })
  return bounds.slice(1).map((end, r) => plan.timedSteps / (((marks.get(end) as number) - (marks.get(bounds[r] as number) as number)) / 1000))
}
