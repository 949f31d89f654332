import {cheat, type StrategyName} from '../../adversary/index.js'
import {trainJobWithOperatorCorruption} from '../../dispute/corruptOperator.js'
import type {OperatorCorruption} from '../../dispute/types.js'
import type {JobSpec} from '../../ml/spec/index.js'
import {TrainingAbortedError, trainJob, taskStepRange, type TrainResult} from '../../ml/train/index.js'
import {finalCheckpointOf} from '../../pol/index.js'
import {listTasks} from '../../protocol/listTasks.js'
import {loadTaskSpec} from '../../protocol/loadTaskSpec.js'
import type {Task} from '../../protocol/types.js'
import {chainTime} from '../chainTime.js'
import {loopPollMs} from '../loopPollMs.js'
import {readSolverState, type SolverState, writeSolverState} from '../solverState.js'
import {parentManifest} from './parentManifest.js'
import {solverDuties} from './solverDuties.js'
import type {SolverRun} from './types.js'

/**
 * Trains a claimed task with proof checkpoints: honestly (resuming from the last checkpoint in the state file),
 * with an adversary strategy, or (TEST ONLY) with an operator corruption. The duties keep running at its
 * checkpoints. Undefined when interrupted: the checkpoints stored so far stay, and the next run resumes there.
 */
export async function trainTask(run: SolverRun, task: Task): Promise<TrainResult | undefined> {
  const spec = await loadTaskSpec(run.connection, task)
  const saved = (await readSolverState(run.connection.stateDir, run.me, task.id)) ?? {taskId: task.id, checkpoints: []}
  try {
    if (run.options.corruption) return await trainCorrupted(run, task, spec, run.options.corruption)
    if (run.strategy === 'honest') return await trainHonestly(run, task, spec, saved)
    return await trainCheat(run, task, spec, run.strategy)
  } catch (error) {
    if (error instanceof TrainingAbortedError) return undefined
    throw error
  }
}

/** TEST ONLY: trains with one operator's output corrupted (src/dispute/corruptOperator.ts); no resume. */
async function trainCorrupted(run: SolverRun, task: Task, spec: JobSpec, corruption: OperatorCorruption): Promise<TrainResult> {
  return trainJobWithOperatorCorruption({
    spec,
    store: run.connection.store,
    corruption,
    signal: run.signal,
    onStep: (step, loss) => progress(run, task, spec, step, loss),
    onCheckpoint: () => dutiesDuringTraining(run),
  })
}

function progress(run: SolverRun, task: Task, spec: JobSpec, step: number, loss: number): void {
  const {start, end} = taskStepRange(spec)
  run.emit({type: 'progress', taskId: task.id, step, steps: end, from: start, loss})
}

async function trainHonestly(run: SolverRun, task: Task, spec: JobSpec, saved: SolverState): Promise<TrainResult> {
  const {connection, me} = run
  const stored = [...saved.checkpoints]
  const last = stored.at(-1)
  const resume = last ? {...last, checkpoints: [...stored]} : undefined
  if (resume) run.emit({type: 'resumed', taskId: task.id, step: resume.step})
  // A split task starts from its parent's final verified checkpoint (docs/market.md, section 4).
  const parent = task.parentId === 0n ? undefined : await parentManifest(connection, task)
  return trainJob({
    spec,
    store: connection.store,
    backend: run.options.backend,
    signal: run.signal,
    resume,
    start: parent ? {hash: finalCheckpointOf(parent).hash} : undefined,
    onStep: (step, loss) => progress(run, task, spec, step, loss),
    onCheckpoint: async (checkpoint, loss) => {
      if (!stored.some((known) => known.step === checkpoint.step)) stored.push(checkpoint)
      const current = (await readSolverState(connection.stateDir, me, task.id)) ?? saved
      await writeSolverState(connection.stateDir, me, {...current, checkpoints: stored})
      // Told only once it is on disk: a process killed after this event resumes from this checkpoint.
      run.emit({type: 'checkpoint', taskId: task.id, step: checkpoint.step, hash: checkpoint.hash, ...(loss === undefined ? {} : {loss})})
      await dutiesDuringTraining(run)
    },
  })
}

/** A cheating solver: makes its proof with an adversary strategy, then commits it like an honest one. */
async function trainCheat(run: SolverRun, task: Task, spec: JobSpec, name: StrategyName): Promise<TrainResult> {
  return cheat({
    strategy: name,
    spec,
    store: run.connection.store,
    backend: run.options.backend,
    seed: Number(BigInt.asUintN(32, BigInt(task.id) * 2654435761n)),
    // A cheat on a split task still has to start from the parent's final checkpoint (commitProof checks it).
    start: task.parentId === 0n ? undefined : {hash: finalCheckpointOf(await parentManifest(run.connection, task)).hash},
    signal: run.signal,
    onStep: (step, loss) => progress(run, task, spec, step, loss),
    onCheckpoint: () => dutiesDuringTraining(run),
  })
}

/** Runs the duties from inside a long training run (at checkpoints), at most once a poll interval. */
async function dutiesDuringTraining(run: SolverRun): Promise<void> {
  if (performance.now() - run.memory.lastDuties < loopPollMs(run.options.pollMs, run.connection)) return
  await solverDuties(run, await listTasks(run.connection), await chainTime(run.connection))
}
