import type {Task} from '../../protocol/types.js'
import type {ChainNow} from '../runRoleLoop.js'
import {attemptOf} from './attemptOf.js'
import type {VerifierRun} from './types.js'

/**
 * The task to verify: one whose verification it holds (to resume), else another solver's committed proof
 * whose sampling block exists, past its claim delay, that it has not passed over.
 */
export function pickCommittedProof(run: VerifierRun, tasks: Task[], now: ChainNow, mayTakeMore: boolean): {task: Task; held: boolean} | undefined {
  const {me, memory} = run
  const held = tasks.find((task) => task.verifier === me && task.status === 'Verifying' && now.timestamp <= task.deadline)
  if (held) return {task: held, held: true}
  const committed = tasks.filter((task) => task.status === 'Committed')
  for (const task of committed) if (!memory.firstSeen.has(attemptOf(task))) memory.firstSeen.set(attemptOf(task), performance.now())
  const waited = (task: Task) => performance.now() - (memory.firstSeen.get(attemptOf(task)) ?? 0) >= (run.options.claimDelayMs ?? 0)
  const ready = committed.find(
    (task) => task.solver !== me && !memory.passed.has(attemptOf(task)) && now.timestamp <= task.deadline && now.number > task.commitBlock + 1n && waited(task),
  )
  return ready && mayTakeMore ? {task: ready, held: false} : undefined
}
