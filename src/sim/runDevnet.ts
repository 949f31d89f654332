import {writeFile} from 'node:fs/promises'
import path from 'node:path'

import {BaseError} from '../errors/base.js'
import type {DevnetReport} from './buildReport.js'
import {createDevnet, type DevnetEvent, type SubmissionOutcome} from './createDevnet.js'
import type {ResolvedScenario} from './scenario.js'

export type RunDevnetOptions = {
  scenario: ResolvedScenario
  stateDir: string
  backend?: 'wasm' | 'cpu' | 'gpu' | undefined
  port?: number | undefined
  /** Return once every job has settled (or failed); otherwise keep the devnet up until `signal` aborts. */
  untilSettled: boolean
  timeoutSeconds?: number | undefined
  signal: AbortSignal
  onEvent?: (event: DevnetEvent) => void
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
        crash = `${event.actor} exited with ${event.exit.exitCode ?? event.exit.signal}: ${event.exit.stderrTail.trim().split('\n').at(-1) ?? ''}`
        crashed.abort()
      }
    },
  })
  let stopping = false
  const timeoutSeconds = options.timeoutSeconds ?? options.scenario.timeoutSeconds
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000)
  const stopSignal = AbortSignal.any([options.signal, crashed.signal, deadline])
  try {
    await devnet.start()
    const jobs = devnet.runJobs()
    let submissions: SubmissionOutcome[] = []
    if (options.untilSettled) {
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
    if (deadline.aborted && options.untilSettled) report.failures.push(`timed out after ${timeoutSeconds} s`)
    if (deadline.aborted && options.untilSettled) report.ok = false
    await writeFile(path.join(options.stateDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`)
    return {report, interrupted: options.signal.aborted, timedOut: deadline.aborted}
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
