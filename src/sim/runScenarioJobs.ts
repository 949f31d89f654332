import path from 'node:path'

import {sleep} from '../util/sleep.js'
import {BaseError} from '../errors/base.js'
import type {Connection} from '../protocol/connect.js'
import type {RosterEntry} from './actorRoster.js'
import type {DevnetAccount} from './devnetAccounts.js'
import type {DevnetEvent, SubmissionOutcome} from './devnetEvents.js'
import type {FinishedJob, PersistedDevnet} from './devnetState.js'
import {profilePoster} from './profilePoster.js'
import {type JobPlan, planJobs, tasksSubmittedBy} from './resumeJobs.js'
import type {ResolvedScenario, ScenarioJob} from './scenario.js'
import type {ActorHandle} from './spawnActor.js'
import type {SuperviseActorOptions, SupervisedActor} from './superviseActor.js'

/** What the jobs of a scenario need from the devnet that runs them. */
export type ScenarioJobsContext = {
  scenario: ResolvedScenario
  accounts: readonly DevnetAccount[]
  roster: readonly RosterEntry[]
  /** The saved run being resumed, if any: its finished jobs are not submitted again. */
  saved: PersistedDevnet | undefined
  connection: Connection | undefined
  deployBlock: bigint
  /** Aborts when the run stops: waits for a job's `at` end, and no further job starts. */
  stopping: AbortSignal
  emit: (event: DevnetEvent) => void
  /** Starts one `gensyn <args>` submitter process of `account`, named `name`, its JSON lines to `onJson`. */
  spawnSubmitter: (name: string, account: DevnetAccount, args: string[], onJson: (value: Record<string, unknown>) => void) => ActorHandle
  /** Runs a process under the devnet's supervisor. */
  supervise: (start: () => ActorHandle, more: Pick<SuperviseActorOptions, 'restart' | 'shouldRestart'>) => SupervisedActor
  /** A job's submitter ended while the run went on: record it (with --state, a resume must not post it again). */
  jobFinished?: ((finished: FinishedJob) => Promise<void>) | undefined
  submitterExited: () => void
}

type QueuedJob = {job: ScenarioJob; index: number}

/**
 * Spawns one `gensyn submit --wait` process per job and waits for them all. Each submitter account posts its
 * jobs in order (two processes would race for its nonces), each once its `at` has come (a demand shift) and the
 * one before has finished; a resumed run skips finished jobs and follows the tasks of one cut short.
 */
export async function runScenarioJobs(context: ScenarioJobsContext): Promise<SubmissionOutcome[]> {
  const queues = submitterQueues(context.scenario, context.accounts)
  const plans = await resumePlans(context, queues)
  // A job's `at` counts from the first run's start, not from this resume.
  const started = performance.now() - (context.saved?.elapsedSeconds ?? 0) * 1000
  const outcomes = await Promise.all([...queues].map(([account, jobs]) => runQueue(context, account, jobs, plans, started)))
  return outcomes.flat()
}

/** The scenario's jobs per submitter account, in order: a job's `submitter`, else round robin. */
function submitterQueues(scenario: ResolvedScenario, accounts: readonly DevnetAccount[]): Map<DevnetAccount, QueuedJob[]> {
  const submitters = accounts.filter((account) => account.role === 'submitter')
  const queues = new Map<DevnetAccount, QueuedJob[]>()
  scenario.jobs.forEach((job, index) => {
    const submitter = submitters[job.submitter ?? index % submitters.length]
    if (!submitter) throw new BaseError(`scenario ${scenario.name}: jobs[${index}].submitter: expected an index below ${submitters.length}`)
    queues.set(submitter, [...(queues.get(submitter) ?? []), {job, index}])
  })
  return queues
}

/** A resumed run: what each job's submitter got done before the stop (src/sim/resumeJobs.ts). */
async function resumePlans(context: ScenarioJobsContext, queues: Map<DevnetAccount, QueuedJob[]>): Promise<Map<number, JobPlan> | undefined> {
  const {saved, connection} = context
  if (!saved || !connection) return undefined
  const submittedBy = new Map<string, bigint[]>()
  for (const account of queues.keys()) submittedBy.set(account.address.toLowerCase(), await tasksSubmittedBy(connection, account.address, context.deployBlock))
  return planJobs([...queues].map(([account, jobs]) => ({address: account.address, jobs: jobs.map(({index}) => index)})), saved.finished, submittedBy)
}

async function runQueue(context: ScenarioJobsContext, account: DevnetAccount, jobs: QueuedJob[], plans: Map<number, JobPlan> | undefined, started: number): Promise<SubmissionOutcome[]> {
  const results: SubmissionOutcome[] = []
  const claimed = new Set((context.saved?.finished ?? []).flatMap((finished) => (jobs.some(({index}) => index === finished.job) ? finished.taskIds : [])))
  const submitterNumber = context.accounts.filter((candidate) => candidate.role === 'submitter').indexOf(account) + 1
  for (const [jobNumber, queued] of jobs.entries()) {
    const plan: JobPlan = plans?.get(queued.index) ?? {kind: 'submit'}
    const name = `submitter-${submitterNumber}${jobs.length > 1 ? `-job-${jobNumber + 1}` : ''}`
    if (plan.kind === 'finished') {
      const {finished} = plan
      results.push({job: finished.jobPath, index: queued.index, submitter: finished.submitter, exit: finished.exit, result: finished.result})
      context.emit({type: 'phase', message: `${name}: finished in an earlier run (tasks ${finished.taskIds.join(', ') || 'none'})`})
      continue
    }
    if (plan.kind === 'submit') await sleep(queued.job.at * 1000 - (performance.now() - started), context.stopping)
    if (context.stopping.aborted) break
    const outcome = {...(await runJob(context, account, name, queued.job, plan)), index: queued.index}
    results.push(outcome)
    // A submitter the stop cut short is not finished: a resume follows its tasks instead.
    if (!outcome.stoppedByDevnet && context.jobFinished && context.connection) {
      const posted = await tasksSubmittedBy(context.connection, account.address, context.deployBlock).catch(() => [])
      const taskIds = posted.map(String).filter((id) => !claimed.has(id))
      for (const id of taskIds) claimed.add(id)
      await context.jobFinished({job: queued.index, submitter: name, jobPath: queued.job.path, taskIds, exit: outcome.exit, result: outcome.result})
    }
  }
  return results
}

/** One job's supervised submitter, from its first start to its end. */
async function runJob(context: ScenarioJobsContext, account: DevnetAccount, name: string, job: ScenarioJob, plan: Exclude<JobPlan, {kind: 'finished'}>): Promise<SubmissionOutcome> {
  const {scenario, connection} = context
  let result: Record<string, unknown> | undefined
  const count = job.count > 1 ? ['--count', String(job.count)] : []
  const follow = plan.kind === 'follow' ? ['--task-ids', plan.taskIds.join(',')] : []
  // protocol.samples overrides every job's verification.segments (it changes the spec hash: a follow needs it too).
  const samples = scenario.protocol.samples === undefined ? [] : ['--segments', String(scenario.protocol.samples)]
  // A scenario's profiles bind its jobs only when pinned: pin the poster's (a follow needs it too, for the same hash).
  const pins = scenario.profile ? ['--thresholds-from', profilePoster(scenario, context.roster).account.address] : []
  const start = (followArgs: string[]) =>
    context.spawnSubmitter(name, account, ['submit', job.path, '--wait', ...count, ...samples, ...pins, ...followArgs], (value) => {
      result = value
      context.emit({type: 'actor', actor: name, role: 'submitter', event: value})
    })
  const postedBefore = connection ? await tasksSubmittedBy(connection, account.address, context.deployBlock) : []
  // A submitter that reported its failure (an invalid job) stays down; one that died silently or by the chaos
  // monkey comes back following what it had posted, so no job is submitted twice.
  const handle = context.supervise(() => start(follow), {
    shouldRestart: (exit) => exit.exitCode !== 0 && exit.error === undefined,
    restart: async () => {
      const args = await followAfterCrash(context, account, postedBefore, follow)
      if (args.length > 0) context.emit({type: 'phase', message: `${name}: restarted, following tasks ${args[1]} it had posted`})
      return start(args)
    },
  })
  const what = `${job.count > 1 ? `${job.count} copies of ` : ''}${path.relative(process.cwd(), job.path)}`
  context.emit({type: 'phase', message: plan.kind === 'follow' ? `${name}: following tasks ${plan.taskIds.join(', ')} of ${what}, submitted before the stop` : `${name}: submitting ${what}`})
  const exit = await handle.exited
  context.emit({type: 'actor-exit', actor: name, role: 'submitter', exit, killed: false})
  context.submitterExited()
  return {job: job.path, submitter: name, exit, result, stoppedByDevnet: context.stopping.aborted}
}

/** The `--task-ids` a restarted submitter follows: what its account posted since its job started, if anything. */
async function followAfterCrash(context: ScenarioJobsContext, account: DevnetAccount, postedBefore: readonly bigint[], follow: string[]): Promise<string[]> {
  if (!context.connection) return follow
  // A submission sent just before the kill is mined within a block or two: wait for it before looking.
  await sleep(2 * context.scenario.chain.blockTime * 1000, context.stopping)
  const known = new Set(postedBefore)
  const posted = (await tasksSubmittedBy(context.connection, account.address, context.deployBlock)).filter((id) => !known.has(id))
  return posted.length > 0 ? ['--task-ids', posted.join(',')] : follow
}
