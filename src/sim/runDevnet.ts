import path from 'node:path'

import {BaseError} from '../errors/base.js'
import type {DevnetReport, PartialRun} from './buildReport.js'
import {createDevnet, type Devnet, type DevnetEvent, type SubmissionOutcome} from './createDevnet.js'
import type {ResolvedScenario} from './scenario.js'
import {exitReason} from './actorExit.js'
import {crashReport} from './report/crashReport.js'
import {reportWithoutChain} from './report/reportWithoutChain.js'
import {writeReportFiles, writeReportJson} from './report/writeReportFiles.js'
import {STOPPED_BY_USER} from './report/types.js'
import {recordRun, runFolder} from './runRecord.js'
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
  /** The run's folder (default: a new one under `<stateDir>/runs`); a sweep keeps its cells' runs in its own state dir's runs/. */
  runDir?: string | undefined
}

export type RunDevnetResult = {
  report: DevnetReport
  interrupted: boolean
  timedOut: boolean
  /** The folder this run's report was written to (also copied to the state dir as the latest). */
  runDir: string
}

/** The devnet ended early and its report says why; the error carries where that report is. */
export class DevnetStoppedError extends BaseError {
  override name = 'DevnetStoppedError'
  constructor(
    message: string,
    readonly runDir: string,
    stateDir: string,
    /** The partial report, so the caller can still print it when no file could hold it. */
    readonly report: DevnetReport,
  ) {
    super(`${message} (partial report: ${path.join(runDir, 'report.md')})`, {details: `Logs: ${path.join(runDir, 'logs')} (also appended to ${path.join(stateDir, 'logs')})`})
  }
}

/**
 * The whole devnet run: start, submit the scenario's jobs, wait, read the report, and stop everything
 * whatever happens (an actor crash, a timeout, Ctrl-C, the chain dying), so no anvil or actor outlives it.
 * A report is written every time, under a run folder of its own; one cut short says it is partial and why.
 */
export async function runDevnet(options: RunDevnetOptions): Promise<RunDevnetResult> {
  const emit = options.onEvent ?? (() => {})
  const runDir = options.runDir ?? runFolder(options.stateDir, options.scenario.name)
  const seenTasks = new Map<string, {taskId: string; actor: string; event: string}>()
  let stopping = false
  let crash: string | undefined
  let chainDied: string | undefined
  const crashed = new AbortController()
  const devnet = createDevnet({
    ...options,
    runLogDir: path.join(runDir, 'logs'),
    onEvent(event) {
      emit(event)
      if (event.type === 'actor' && event.event.taskId !== undefined) {
        const taskId = String(event.event.taskId)
        seenTasks.set(taskId, {taskId, actor: event.actor, event: String(event.event.type)})
      }
      // Only an actor the supervisor gave up on ends the run (a dropout's SIGKILL is the scenario's own doing).
      const isRoleLoop = event.type === 'actor-exit' && event.role !== 'submitter' && !event.killed
      if (isRoleLoop && !stopping && event.exit.exitCode !== 0) {
        crash = `${event.actor} kept crashing (last: exit ${event.exit.exitCode ?? event.exit.signal}: ${exitReason(event.exit)})`
        crashed.abort()
      }
    },
    onChainDied(reason) {
      if (stopping) return
      chainDied = `the chain died: anvil ${reason}`
      emit({type: 'phase', message: chainDied})
      crashed.abort()
    },
  })
  const timeoutSeconds = options.timeoutSeconds ?? options.scenario.timeoutSeconds
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000)
  // scenario.durationSeconds: a run of fixed length, reported and judged when it ends (docs/scenarios.md).
  const {durationSeconds} = options.scenario
  const durationOver = durationSeconds === undefined ? undefined : AbortSignal.timeout(durationSeconds * 1000)
  const untilSettled = options.untilSettled || options.scenario.untilSettled
  const stopSignal = AbortSignal.any([options.signal, crashed.signal, deadline, ...(durationOver ? [durationOver] : [])])
  try {
    await devnet.start()
    // After start: a second devnet refused there must not overwrite the running one's record.
    const parameters = {backend: options.backend ?? options.scenario.backend, port: options.port, untilSettled, timeoutSeconds, seed: options.scenario.seed}
    const record = {runDir, scenario: options.scenario, stateFile: options.state && path.resolve(options.state), startedAt: new Date().toISOString(), parameters}
    await recordRun(options.stateDir, record)
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
    const cutShort = chainDied ?? (crash ? `devnet stopped: ${crash}` : options.signal.aborted && untilSettled ? STOPPED_BY_USER : undefined)
    const report = await readReport(devnet, submissions, cutShort, chainDied !== undefined, () => [...seenTasks.values()], options.scenario)
    if (deadline.aborted && untilSettled && !durationOver?.aborted) {
      report.failures.push(`timed out after ${timeoutSeconds} s`)
      report.ok = false
    }
    await writeRunReport(options.stateDir, runDir, report)
    // The end time gives `devnet runs list` and `--compare` the run's wall time; a record that cannot be written costs only that.
    await recordRun(options.stateDir, {...record, endedAt: new Date().toISOString()}).catch(() => {})
    if (chainDied) throw new DevnetStoppedError(`${chainDied}${options.state ? '; `gensyn devnet up --resume` continues from its last dump' : ''}`, runDir, options.stateDir, report)
    if (crash) throw new DevnetStoppedError(`devnet stopped: ${crash}`, runDir, options.stateDir, report)
    return {report, interrupted: options.signal.aborted, timedOut: deadline.aborted && !durationOver?.aborted, runDir}
  } finally {
    stopping = true
    await devnet.stop()
  }
}

/**
 * The run's report, read from the chain when it is there. A run cut short says so (partial); with the chain
 * gone, the report holds what the devnet saw itself (reportWithoutChain).
 */
async function readReport(
  devnet: Devnet,
  submissions: SubmissionOutcome[],
  cutShort: string | undefined,
  chainGone: boolean,
  seenTasks: () => NonNullable<PartialRun['seenTasks']>,
  scenario: ResolvedScenario,
): Promise<DevnetReport> {
  const withoutChain = (reason: string) =>
    reportWithoutChain({scenario, reason, actors: devnet.actors, dropouts: devnet.dropouts, crashes: devnet.crashes.map(crashReport), seenTasks: seenTasks()})
  if (chainGone) return withoutChain(cutShort!)
  try {
    const report = await devnet.report(submissions)
    if (!cutShort) return report
    return {...report, ok: false, failures: [...report.failures, cutShort], partial: {reason: cutShort, chainRead: true}}
  } catch (error) {
    const reason = `${cutShort ?? 'the run ended'}; the chain could not be read back (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`
    return withoutChain(reason)
  }
}

/**
 * The report in the run's own folder, then in the state dir as the latest (where `devnet report` and the docs
 * look). A full disk must not lose it: if the files cannot be written, report.json alone is tried, and the
 * error names where it is missing from.
 */
async function writeRunReport(stateDir: string, runDir: string, report: DevnetReport): Promise<void> {
  try {
    await writeReportFiles(runDir, report)
    await writeReportFiles(stateDir, report)
  } catch (error) {
    const written = await writeReportJson(runDir, report).then(
      () => `only ${runDir}/report.json was written`,
      () => 'no report file could be written (the report is still printed)',
    )
    report.failures.push(`report files: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; ${written}`)
    report.ok = false
  }
}

/** Resolves on abort without a timer of its own, so it never keeps a finished run's process alive. */
function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), {once: true})
  })
}
