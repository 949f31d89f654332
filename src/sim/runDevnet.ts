import {BaseError} from '../errors/base.js'
import type {DevnetReport} from './buildReport.js'
import {createDevnet, type Devnet, type DevnetEvent, type SubmissionOutcome} from './createDevnet.js'
import type {ResolvedScenario} from './scenario.js'
import {exitReason} from './spawnActor.js'
import {writeReportFiles} from './report/writeReportFiles.js'
import {type BackendChoice} from '../ml/backend/runtimeId.js'

export type RunDevnetOptions = {
  scenario: ResolvedScenario
  stateDir: string
  backend?: BackendChoice | undefined
  port?: number | undefined
  /** Persist the run in FILE and FILE.d/, resuming one that is there (createDevnet's `state`). */
  state?: string | undefined
  /** Return once every job has settled (or failed); otherwise keep the devnet up until `signal` aborts. */
  untilSettled: boolean
  timeoutSeconds?: number | undefined
  signal: AbortSignal
  onEvent?: (event: DevnetEvent) => void
  /** Called once the devnet is up: a live view (the dashboard) reads the chain and pauses the actors through it. */
  onStarted?: ((devnet: Devnet) => void) | undefined
}

export type RunDevnetResult = {report: DevnetReport; interrupted: boolean; timedOut: boolean}

/**
 * The whole devnet run: start, submit the scenario's jobs, wait, read the report, and stop everything
 * whatever happens (an actor crash, a timeout, Ctrl-C), so no anvil or actor outlives it.
 */
export async function runDevnet(options: RunDevnetOptions): Promise<RunDevnetResult> {
  const emit = options.onEvent ?? (() => {})
  let crash: string | undefined
  const crashed = new AbortController()
  const devnet = createDevnet({
    ...options,
    onEvent(event) {
      emit(event)
      // A dropout solver's SIGKILL is the scenario's own doing, not a crash.
      const isRoleLoop = event.type === 'actor-exit' && event.role !== 'submitter' && !event.killed
      if (isRoleLoop && !stopping && event.exit.exitCode !== 0) {
        crash = `${event.actor} exited with ${event.exit.exitCode ?? event.exit.signal}: ${exitReason(event.exit)}`
        crashed.abort()
      }
    },
  })
  let stopping = false
  const timeoutSeconds = options.timeoutSeconds ?? options.scenario.timeoutSeconds
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000)
  // scenario.durationSeconds: a run of fixed length, reported and judged when it ends (docs/scenarios.md).
  const {durationSeconds} = options.scenario
  const durationOver = durationSeconds === undefined ? undefined : AbortSignal.timeout(durationSeconds * 1000)
  const untilSettled = options.untilSettled || options.scenario.untilSettled
  const stopSignal = AbortSignal.any([options.signal, crashed.signal, deadline, ...(durationOver ? [durationOver] : [])])
  try {
    await devnet.start()
    options.onStarted?.(devnet)
    const jobs = devnet.runJobs()
    let submissions: SubmissionOutcome[] = []
    if (untilSettled) {
      const finished = await Promise.race([jobs.then((outcomes) => ({outcomes})), waitForAbort(stopSignal).then(() => undefined)])
      if (finished) submissions = finished.outcomes
    } else {
      await waitForAbort(stopSignal)
    }
    stopping = true
    await devnet.stopActors()
    if (submissions.length === 0) submissions = await jobs
    if (crash) throw new BaseError(`devnet stopped: ${crash}`, {details: `Logs: ${options.stateDir}/logs`})
    let report: DevnetReport
    try {
      report = await devnet.report(submissions)
    } catch (error) {
      // A Ctrl-C on a terminal reaches anvil too, and it may be gone before we can read it back.
      if (!options.signal.aborted) throw error
      throw new BaseError('devnet interrupted before its report could be read', {cause: error, exitCode: 130})
    }
    if (deadline.aborted && untilSettled && !durationOver?.aborted) {
      report.failures.push(`timed out after ${timeoutSeconds} s`)
      report.ok = false
    }
    // report.json first, then charts/ and report.md (docs/report.md).
    await writeReportFiles(options.stateDir, report)
    return {report, interrupted: options.signal.aborted, timedOut: deadline.aborted && !durationOver?.aborted}
  } finally {
    stopping = true
    await devnet.stop()
  }
}

/** Resolves on abort without a timer of its own, so it never keeps a finished run's process alive. */
function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), {once: true})
  })
}
