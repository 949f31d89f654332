import {getTask} from '../protocol/getTask.js'
import type {Task} from '../protocol/types.js'
import {runRoleLoop} from './runRoleLoop.js'
import {claimOpenTask} from './solver/claimOpenTask.js'
import {commitTrainedProof} from './solver/commitTrainedProof.js'
import {hasRevealPending} from './solver/hasRevealPending.js'
import {pickTask} from './solver/pickTask.js'
import {solverDuties} from './solver/solverDuties.js'
import {startSolver} from './solver/startSolver.js'
import {trainTask} from './solver/trainTask.js'
import type {SolvedTask, SolverOptions, SolverRun} from './solver/types.js'

export {
  SEED_FIX_AFTER_BLOCKS,
  type SolvedTask,
  type SolverDisputeStance,
  solverDisputeStances,
  type SolverEvent,
  type SolverOptions,
} from './solver/types.js'

/**
 * The solver's role loop: take an open task (committing to a fresh secret), train it with proof checkpoints,
 * toss the forced-error coin, commit the proof (a deliberately wrong one when forced, with the honest one
 * sealed), reveal a forced error after the challenge window, dispute a rejection of an honest proof, play
 * its disputes with the dispute agent, and pump settle on its verified tasks. A task it had claimed before a
 * crash is resumed from its last stored checkpoint; the secret is in the state file, so it can still reveal.
 * Each step is a file in src/actors/solver/; what they share is the `SolverRun` they are given.
 */
export async function runSolver(options: SolverOptions): Promise<SolvedTask[]> {
  // Register, list the offer's ask, read the work table, start the dispute agent.
  const run = await startSolver(options)
  return runRoleLoop({
    options,
    isOwnVerified: (task) => task.solver === run.me && task.status === 'Verified',
    // Resume a held claim, else an open task the book and its own checks allow.
    pick: (tasks, now, mayTakeMore) => pickTask(run, tasks, now, mayTakeMore),
    // Claim, train, toss the coin and commit.
    work: (task, held) => solveTask(run, task, held),
    // Manage the offer, fix an aging seed, reveal forced errors, dispute wrong rejections, play disputes.
    duties: (tasks, now) => solverDuties(run, tasks, now),
    onSettled: (report) => run.emit({type: 'settle', ...report}),
    onExpired: (report) => run.emit({type: 'expired', ...report}),
    // A claim that moved on under its training (expired and reassigned: InvalidSecret at the coin) must not stop
    // the loop; the other tasks go on.
    onTaskReverted: ({taskId, message}) => run.emit({type: 'warning', taskId, message}),
    finished: () => run.memory.left,
    // A one-task run stays until its forced error is revealed: leaving would get an honest solver slashed.
    busy: (tasks) => hasRevealPending(run, tasks),
  })
}

/** One task's work: claim it (unless held from before), train it, then toss the coin and commit. */
async function solveTask(run: SolverRun, task: Task, alreadyClaimed: boolean): Promise<SolvedTask | undefined> {
  if (!alreadyClaimed && !(await claimOpenTask(run, task))) return undefined
  const result = await trainTask(run, task)
  if (result === undefined || run.signal?.aborted) return undefined
  return commitTrainedProof(run, await getTask(run.connection, {taskId: task.id}), result)
}
