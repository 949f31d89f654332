import type {Address} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {Connection} from '../protocol/connect.js'
import type {FinishedJob} from './devnetState.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

/** What a resumed devnet does with one job of its scenario. */
export type JobPlan =
  | {kind: 'finished'; finished: FinishedJob}
  /** Its tasks are on chain but its submitter was stopped before they settled: follow them, post nothing. */
  | {kind: 'follow'; taskIds: bigint[]}
  | {kind: 'submit'}

/** One submitter account and the scenario jobs (positions in scenario.jobs) it posts, in order. */
export type SubmitterQueue = {address: Address; jobs: number[]}

/**
 * Which job each task on chain belongs to. A submitter account runs one `gensyn submit` at a time, its jobs in
 * order, so at most one job per account can have been cut short: the tasks of that account that no finished job
 * claims are that job's, the first unfinished one of its queue. Later jobs were never posted.
 */
export function planJobs(queues: readonly SubmitterQueue[], finished: readonly FinishedJob[], submittedBy: ReadonlyMap<string, readonly bigint[]>): Map<number, JobPlan> {
  const plans = new Map<number, JobPlan>()
  const finishedByJob = new Map(finished.map((entry) => [entry.job, entry]))
  for (const queue of queues) {
    const claimed = new Set(queue.jobs.flatMap((job) => finishedByJob.get(job)?.taskIds ?? []))
    const open = (submittedBy.get(queue.address.toLowerCase()) ?? []).filter((id) => !claimed.has(id.toString()))
    let followed = false
    for (const job of queue.jobs) {
      const done = finishedByJob.get(job)
      if (done) {
        plans.set(job, {kind: 'finished', finished: done})
      } else if (!followed && open.length > 0) {
        plans.set(job, {kind: 'follow', taskIds: [...open].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))})
        followed = true
      } else {
        followed = true
        plans.set(job, {kind: 'submit'})
      }
    }
  }
  return plans
}

/** Ids of every task `submitter` posted since `fromBlock`, read from the market's TaskSubmitted events. */
export async function tasksSubmittedBy(connection: Pick<Connection, 'publicClient' | 'contracts'>, submitter: Address, fromBlock: bigint): Promise<bigint[]> {
  const logs = await getLogsPaged(connection.publicClient, {fromBlock}, (range) => connection.publicClient.getContractEvents({
    address: connection.contracts.market,
    abi: taskMarketAbi,
    eventName: 'TaskSubmitted',
    args: {submitter},
    ...range,
  }))
  return logs.flatMap((log) => (log.args.id === undefined ? [] : [log.args.id]))
}
