import type {Hex} from 'viem'

import type {BackendChoice} from '../ml/backend/index.js'
import type {SignedConnection} from '../protocol/connect.js'
import {ContractRevertError, isRevert} from '../protocol/errors.js'
import {listTasks} from '../protocol/listTasks.js'
import {expireTask, type SettleOutcome, settleTask} from '../protocol/marketActions.js'
import type {Task} from '../protocol/types.js'
import {chainTime} from './chainTime.js'
import {waitForNewHead} from './waitForNewHead.js'

/** What every role loop (solver, verifier) is given. */
export type RoleLoopOptions<Event> = {
  connection: SignedConnection
  backend: BackendChoice
  /** Keep taking tasks until aborted; otherwise finish one task (or `maxTasks`) and return. */
  loop: boolean
  maxTasks?: number | undefined
  pollMs?: number
  signal?: AbortSignal | undefined
  onEvent?: (event: Event) => void
  /**
   * This actor's seed (a devnet derives one per actor from the run's seed): its secrets and random choices come
   * from it, so a replay of the run makes the same ones. Without it they are random.
   */
  seed?: Hex | undefined
}

export type ChainNow = {timestamp: bigint; number: bigint}

/** What one settle call did to a task (docs/disputes.md, "Task lifecycle", 8). */
export type SettleReport = {taskId: bigint; gasUsed: bigint; outcome: SettleOutcome}

/** One expire call on a claimed task past its training deadline: its solver timed out (docs/market.md, section 5). */
export type ExpireReport = {taskId: bigint; solver: Task['solver']; gasUsed: bigint}

type Picked = {task: Task; held: boolean}

export type RoleLoopParameters<Result> = {
  options: RoleLoopOptions<never>
  /** This role's verified tasks: it pumps settle on them once their reveal window has passed. */
  isOwnVerified: (task: Task) => boolean
  /** A task this role already holds (to resume), else a new one to take, if it may take more. */
  pick: (tasks: Task[], now: ChainNow, mayTakeMore: boolean) => Picked | undefined | Promise<Picked | undefined>
  work: (task: Task, held: boolean) => Promise<Result | undefined>
  /** Duties every iteration, before any work (reveals, rejection disputes, dispute rounds, committee votes). */
  duties?: ((tasks: Task[], now: ChainNow) => Promise<void>) | undefined
  onSettled: (report: SettleReport) => void
  /** Told of each claimed task this loop expired past its training deadline (it goes back to the pool). */
  onExpired?: ((report: ExpireReport) => void) | undefined
  /**
   * In a loop, told of a task whose work ended in a contract revert (the task moved on under it: reassigned after
   * a timeout, settled by someone else). The loop goes on with the other tasks and leaves that attempt alone;
   * the protocol's timeouts take care of it. A one-task run throws the revert instead. `message` says so in
   * one line, for the role's warning.
   */
  onTaskReverted?: ((report: {taskId: bigint; error: ContractRevertError; message: string}) => void) | undefined
  /** Return (once nothing is `busy`) when this says so, even in a loop: a solver that leaves the market. */
  finished?: (() => boolean) | undefined
  /**
   * Also finish when this says the role still has something to see through (a reveal, a dispute), so that a
   * one-task run does not return in the middle of it. Default: never.
   */
  busy?: ((tasks: Task[]) => boolean | Promise<boolean>) | undefined
}

/**
 * The settle pump (docs/disputes.md, "Task lifecycle", 8): calls settle on every task `isDue` picks once its
 * reveal window has passed, and reports what each call did. A task stays Verified while a dispute is played
 * (DisputeInProgress) or after a dispute is opened; the next call moves it on. Reverts another party's
 * transaction can cause (it settled first: InvalidStatus) are expected and skipped.
 */
export async function pumpSettle(connection: SignedConnection, tasks: readonly Task[], now: ChainNow, onSettled: (report: SettleReport) => void): Promise<void> {
  for (const task of tasks) {
    // settle needs block.number > revealEndBlock; the transaction lands in a block after the one read.
    if (task.status !== 'Verified' || now.number < task.revealEndBlock) continue
    try {
      const transaction = await settleTask(connection, {taskId: task.id})
      onSettled({taskId: task.id, gasUsed: transaction.gasUsed, outcome: transaction.outcome})
    } catch (error) {
      if (!isRevert(error, 'InvalidStatus', 'DisputeInProgress', 'SettlementNotReady')) throw error
    }
  }
}

/**
 * The expire pump (docs/market.md, section 5): a claimed task past its training deadline is expired by anyone
 * who sees it, so a solver that vanished (crashed, killed, offline) does not hold the task for ever: it loses
 * part of its stake and the task returns to the pool. Reverts from another party getting there first are
 * expected and skipped.
 */
export async function pumpExpire(connection: SignedConnection, tasks: readonly Task[], now: ChainNow, onExpired?: (report: ExpireReport) => void): Promise<void> {
  for (const task of tasks) {
    // The transaction lands in a later block, whose timestamp is past the one read.
    if (task.status !== 'Claimed' || now.timestamp <= task.deadline) continue
    try {
      const transaction = await expireTask(connection, {taskId: task.id})
      onExpired?.({taskId: task.id, solver: task.solver, gasUsed: transaction.gasUsed})
    } catch (error) {
      if (!isRevert(error, 'InvalidStatus', 'NotExpirable', 'DeadlineNotReached')) throw error
    }
  }
}

/**
 * The loop both working roles share: read the market, do the role's duties, pump settle and expire on what
 * is due, take or resume one task, and otherwise wait for the next block (waitForNewHead), until aborted or done.
 */
export async function runRoleLoop<Result>(parameters: RoleLoopParameters<Result>): Promise<Result[]> {
  const {options} = parameters
  const maxTasks = options.maxTasks ?? (options.loop ? Number.POSITIVE_INFINITY : 1)
  const done: Result[] = []
  // The attempts whose work reverted: not taken up again (the same attempt would revert the same way).
  const reverted = new Set<string>()
  const attemptOf = (task: Task) => `${task.id}:${task.attempts}:${task.claimBlock}`
  while (!options.signal?.aborted) {
    // Together, so that their first reads share one JSON-RPC batch (a request fewer each pass, once a block).
    const [tasks, now] = await Promise.all([listTasks(options.connection), chainTime(options.connection)])
    await parameters.duties?.(tasks, now)
    await pumpSettle(options.connection, tasks.filter(parameters.isOwnVerified), now, parameters.onSettled)
    await pumpExpire(options.connection, tasks, now, parameters.onExpired)
    const next = await parameters.pick(tasks, now, done.length < maxTasks && !parameters.finished?.())
    if (next && !reverted.has(attemptOf(next.task))) {
      const result = await parameters.work(next.task, next.held).catch((error: unknown) => {
        if (!options.loop || !(error instanceof ContractRevertError)) throw error
        reverted.add(attemptOf(next.task))
        const message = `${error.shortMessage}: left to the protocol's timeouts, going on with the other tasks`
        parameters.onTaskReverted?.({taskId: next.task.id, error, message})
        return undefined
      })
      if (result !== undefined) done.push(result)
    } else {
      await waitForNewHead(options.connection, now.number, options)
    }
    const finished = (!options.loop && done.length >= maxTasks) || parameters.finished?.() === true
    if (finished && !(await parameters.busy?.(await listTasks(options.connection)))) break
  }
  return done
}
