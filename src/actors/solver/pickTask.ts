import {BaseError} from '../../errors/base.js'
import {estimateWork} from '../../ml/estimate/estimateWork.js'
import {loadTaskSpec} from '../../protocol/loadTaskSpec.js'
import {settledWhole, type Task} from '../../protocol/types.js'
import type {ChainNow} from '../runRoleLoop.js'
import {isLeaving} from './isLeaving.js'
import type {SolverRun} from './types.js'
import {warnOnce} from './warnOnce.js'

/**
 * The task to work on: one it holds (a claim to resume), else an open one it may claim by docs/market.md,
 * section 3 (only while listed, below capacity, with ask <= price), past its claim delay, not lost or barred,
 * priced within the submitter's ceiling, with its parent done and its declared work honest.
 */
export async function pickTask(run: SolverRun, tasks: Task[], now: ChainNow, mayTakeMore: boolean): Promise<{task: Task; held: boolean} | undefined> {
  const {me, memory, options} = run
  const held = tasks.find((task) => task.solver === me && task.status === 'Claimed' && now.timestamp <= task.deadline)
  if (held) return {task: held, held: true}
  for (const task of tasks) if (task.status === 'Submitted' && !memory.firstSeen.has(task.id)) memory.firstSeen.set(task.id, performance.now())
  if (!mayTakeMore || isLeaving(run) || !memory.book.listed || memory.book.active >= run.capacity || memory.book.price < run.ask) return undefined
  const waited = (task: Task) => performance.now() - (memory.firstSeen.get(task.id) ?? 0) >= (options.claimDelayMs ?? 0)
  for (const task of tasks) {
    if (task.status !== 'Submitted' || memory.never.has(task.id) || now.timestamp > task.deadline || !waited(task)) continue
    if ((memory.lostRaces.get(task.id) ?? -2n) + 1n >= now.number) continue
    // The submitter's ceiling: a task priced below the market waits for the price to come down.
    if (task.maxPrice < memory.book.price) continue
    if (task.parentId !== 0n && !parentDone(task, tasks)) continue
    if (!(await declaresHonestWork(run, task))) continue
    return {task, held: false}
  }
  return undefined
}

/** A split task may be claimed once its parent settled with its whole range (docs/market.md, section 4). */
function parentDone(task: Task, tasks: readonly Task[]): boolean {
  const parent = tasks.find((other) => other.id === task.parentId)
  return parent !== undefined && settledWhole(parent)
}

/**
 * A task is paid by the work units it declares: one that declares fewer than its spec needs (by our own
 * estimate with the protocol's table) would be trained at a loss, so it is skipped with a warning.
 */
async function declaresHonestWork(run: SolverRun, task: Task): Promise<boolean> {
  const known = run.memory.honestWork.get(task.id)
  if (known !== undefined) return known
  let verdict: boolean
  try {
    const estimate = estimateWork(await loadTaskSpec(run.connection, task), run.workTable)
    verdict = task.workUnits >= estimate.workUnits
    if (!verdict) warnOnce(run, task.id, `declares ${task.workUnits} work units, its spec needs ${estimate.workUnits} by our estimate: not claimed`)
  } catch (error) {
    if (!(error instanceof BaseError)) throw error
    verdict = false
    warnOnce(run, task.id, `its spec cannot be estimated (${error.shortMessage}): not claimed`)
  }
  run.memory.honestWork.set(task.id, verdict)
  return verdict
}
