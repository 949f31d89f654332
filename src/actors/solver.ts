import type {Hex} from 'viem'

import {type BackendName, runtimeIdString, selectBackend} from '../ml/backend/index.js'
import {cheat, type StrategyName} from '../adversary/index.js'
import type {JobSpec} from '../ml/spec/index.js'
import {TrainingAbortedError, trainJob, type TrainResult} from '../ml/train/index.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {isRevert} from '../protocol/errors.js'
import {claimTask, commitProof} from '../protocol/marketActions.js'
import type {Task} from '../protocol/types.js'
import {loadTaskSpec} from '../protocol/loadTaskSpec.js'
import {type RoleLoopOptions, runRoleLoop} from './runRoleLoop.js'
import {readSolverState, writeSolverState} from './solverState.js'

export type SolverEvent =
  | {type: 'ready'; address: Hex; runtime: string}
  | {type: 'claimed'; taskId: bigint; gasUsed: bigint}
  | {type: 'resumed'; taskId: bigint; step: number}
  | {type: 'progress'; taskId: bigint; step: number; steps: number; loss: number}
  | {type: 'checkpoint'; taskId: bigint; step: number; hash: Hex}
  | {
      type: 'committed'
      taskId: bigint
      proofRoot: Hex
      manifestHash: Hex
      checkpoints: number
      trainingSeconds: number
      runtime: string
      gasUsed: bigint
      /** Set when the proof was made by an adversary strategy. */
      strategy?: StrategyName
    }
  | {type: 'settled'; taskId: bigint; gasUsed: bigint}
  | {type: 'lost-race'; taskId: bigint; reason: string}

export type SolverOptions = RoleLoopOptions<SolverEvent> & {
  /** Wait this long after first seeing an open task before claiming it (a slower-reacting solver). */
  claimDelayMs?: number | undefined
  /** An adversary strategy from src/adversary (docs/adversaries.md); `honest` (the default) trains for real. */
  strategy?: StrategyName | undefined
}

export type SolvedTask = {taskId: bigint; proofRoot: Hex; manifestHash: Hex; checkpoints: number; trainingSeconds: number}

/**
 * The solver's role loop: take an open task, train it with proof checkpoints, commit the proof root, and
 * settle its own verified tasks once their challenge window closes. A task it had claimed before a crash is
 * resumed from its last stored checkpoint.
 */
export async function runSolver(options: SolverOptions): Promise<SolvedTask[]> {
  const {connection, signal} = options
  const emit = options.onEvent ?? (() => {})
  const me = connection.account.address
  // Tasks another solver claimed first: the list we read may still show them open for a block.
  const lostRaces = new Set<bigint>()
  // When each open task was first seen, for claimDelayMs.
  const firstSeen = new Map<bigint, number>()

  const runtime = await selectBackend(options.backend)
  await ensureRegistered(connection, 'solver')
  emit({type: 'ready', address: me, runtime: runtimeIdString(runtime)})

  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.solver === me && task.status === 'Verified',
    pick(tasks, now, mayTakeMore) {
      const held = tasks.find((task) => task.solver === me && task.status === 'Claimed' && now.timestamp <= task.deadline)
      if (held) return {task: held, held: true}
      for (const task of tasks) if (task.status === 'Submitted' && !firstSeen.has(task.id)) firstSeen.set(task.id, performance.now())
      const waited = (task: Task) => performance.now() - (firstSeen.get(task.id) ?? 0) >= (options.claimDelayMs ?? 0)
      const open = tasks.find((task) => task.status === 'Submitted' && !lostRaces.has(task.id) && now.timestamp <= task.deadline && waited(task))
      return open && mayTakeMore ? {task: open, held: false} : undefined
    },
    work: solveTask,
    onSettled: (taskId, gasUsed) => emit({type: 'settled', taskId, gasUsed}),
  })

  async function solveTask(task: Task, alreadyClaimed: boolean): Promise<SolvedTask | undefined> {
    if (!alreadyClaimed) {
      await ensureRegistered(connection, 'solver')
      try {
        const claim = await claimTask(connection, task.id)
        emit({type: 'claimed', taskId: task.id, gasUsed: claim.gasUsed})
      } catch (error) {
        if (isRevert(error, 'InvalidStatus', 'DeadlinePassed', 'SolverRejected', 'EscrowExhausted')) {
          emit({type: 'lost-race', taskId: task.id, reason: error.errorName})
          lostRaces.add(task.id)
          return undefined
        }
        throw error
      }
    }
    const spec = await loadTaskSpec(connection, task)
    const saved = await readSolverState(connection.stateDir, me, task.id)
    if (options.strategy && options.strategy !== 'honest') return commitCheat(task, spec, options.strategy)
    const stored = [...(saved?.checkpoints ?? [])]
    const last = stored.at(-1)
    const resume = last ? {...last, checkpoints: [...stored]} : undefined
    if (resume) emit({type: 'resumed', taskId: task.id, step: resume.step})
    const training = trainJob({
      spec,
      store: connection.store,
      backend: options.backend,
      signal,
      resume,
      onStep: (step, loss) => emit({type: 'progress', taskId: task.id, step, steps: spec.training.steps, loss}),
      onCheckpoint: async (checkpoint) => {
        emit({type: 'checkpoint', taskId: task.id, step: checkpoint.step, hash: checkpoint.hash})
        if (!stored.some((known) => known.step === checkpoint.step)) stored.push(checkpoint)
        await writeSolverState(connection.stateDir, me, {taskId: task.id, checkpoints: stored})
      },
    })
    let result: Awaited<typeof training>
    try {
      result = await training
    } catch (error) {
      // Interrupted: the checkpoints stored so far stay in the state file, and the next run resumes there.
      if (error instanceof TrainingAbortedError) return undefined
      throw error
    }
    return commit(task, result)
  }

  async function commit(task: Task, result: TrainResult, strategy?: StrategyName): Promise<SolvedTask> {
    const transaction = await commitProof(connection, task.id, {
      proofRoot: result.proofRoot,
      manifestHash: result.manifestHash,
      checkpointCount: result.checkpoints.length,
    })
    emit({
      type: 'committed',
      taskId: task.id,
      proofRoot: result.proofRoot,
      manifestHash: result.manifestHash,
      checkpoints: result.checkpoints.length,
      trainingSeconds: result.seconds,
      runtime: runtimeIdString(result.runtime),
      gasUsed: transaction.gasUsed,
      ...(strategy ? {strategy} : {}),
    })
    return {taskId: task.id, proofRoot: result.proofRoot, manifestHash: result.manifestHash, checkpoints: result.checkpoints.length, trainingSeconds: result.seconds}
  }

  /** A cheating solver: makes its proof with an adversary strategy, then commits it like an honest one. */
  async function commitCheat(task: Task, spec: JobSpec, strategy: StrategyName): Promise<SolvedTask | undefined> {
    const faked = await cheat({
      strategy,
      spec,
      store: connection.store,
      backend: options.backend,
      seed: Number(BigInt.asUintN(32, BigInt(task.id) * 2654435761n)),
      signal,
      onStep: (step, loss) => emit({type: 'progress', taskId: task.id, step, steps: spec.training.steps, loss}),
    })
    return commit(task, faked, strategy)
  }
}
