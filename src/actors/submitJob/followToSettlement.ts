import type {SignedConnection} from '../../protocol/connect.js'
import {type Task, type TaskStatus, verdictOf} from '../../protocol/types.js'
import {readTaskLedgers} from '../../protocol/taskLedger.js'
import {followTasks} from '../followTask.js'
import type {SubmitJobOptions, SubmittedTask} from './types.js'

const phaseOf: Record<TaskStatus, number> = {None: 0, Submitted: 0, Claimed: 1, Committed: 2, Verifying: 3, Verified: 4, Settled: 5, Expired: 5}

/**
 * Follows the job's tasks until each is settled or expired (pumping settle and expire, telling each move), then
 * writes into each task its outcome and, from its ledger since `fromBlock`, what it paid and got back. Returns
 * the final tasks and the totals paid and refunded.
 */
export async function followToSettlement(
  connection: SignedConnection,
  tasks: SubmittedTask[],
  fromBlock: bigint,
  options: Pick<SubmitJobOptions, 'signal' | 'onStatus' | 'onSettle' | 'onExpired'>,
): Promise<{finals: Task[]; paid: bigint; refunded: bigint}> {
  for (const task of tasks) options.onStatus?.(task.taskId!, 0, 'Submitted')
  const finals = await followTasks({
    connection,
    taskIds: tasks.map((task) => BigInt(task.taskId!)),
    signal: options.signal,
    onEvent: (event) => {
      if (event.type === 'status') options.onStatus?.(event.task.id.toString(), phaseOf[event.task.status], event.task.status)
      if (event.type === 'settle') options.onSettle?.(event)
      if (event.type === 'expired') options.onExpired?.(event.taskId.toString(), event.from)
    },
  })
  const ledgers = await readTaskLedgers(connection, fromBlock, finals.map((task) => task.id))
  let paid = 0n
  let refunded = 0n
  for (const [position, final] of finals.entries()) {
    const task = tasks[position]!
    const ledger = ledgers.get(final.id)
    task.status = final.status
    task.verdict = verdictOf(final)
    task.totalSteps = final.totalSteps.toString()
    if (final.price > 0n) task.price = final.price.toString()
    if (ledger) {
      task.solverPaid = ledger.solverPaid.toString()
      task.verifierPaid = ledger.verifierPaid.toString()
      task.tax = ledger.tax.toString()
      task.fromEscrow = ledger.fromEscrow.toString()
      task.refunded = ledger.refunded.toString()
      paid += ledger.solverPaid + ledger.verifierPaid + ledger.tax + ledger.fromEscrow
      refunded += ledger.refunded
    }
  }
  return {finals, paid, refunded}
}
