import type {Hex} from 'viem'

import type {ReportContext} from '../reportContext.js'
import {submittedTasks} from '../submittedTasks.js'

/** A parallel split's round as the submitter's JSON result tells it (src/actors/submitJob/types.ts, ShardRound). */
export type JobRound = {round: number; taskIds: string[]; start?: Hex; mean?: Hex}

/** One scenario job as its submitter told it: how it was split, what it delivered, and how long it took. */
export type JobReport = {
  /** Its place in the scenario's `jobs`. */
  index: number
  /** As the scenario names it (relative to the scenario file). */
  file: string
  submitter: string
  /** Tasks posted; a parallel split's rounds (their tasks, start and the mean of their finals) and shards per round. */
  tasks: number
  rounds?: JobRound[]
  shards?: number
  /** The delivered model's checkpoint (a parallel split's: the last round's mean). */
  finalCheckpoint: Hex | null
  verdict: string | null
  testAccuracy: number | null
  /** From the start of its submission to the delivered model (the submitter's clock); null when it did not finish. */
  wallSeconds: number | null
  /** The scenario's `compareWith`: that job's wall time over this one's. */
  speedup?: {over: number; ratio: number | null}
}

/** Every submitted job of the scenario, in the scenario's order, with the speed-ups its `compareWith` asks for. */
export function jobsSection({submissions, scenario}: Pick<ReportContext, 'submissions' | 'scenario'>): JobReport[] {
  const jobs = submissions.flatMap((submission, position) => {
    const index = submission.index ?? position
    const job = scenario.jobs[index]
    return job ? [{job, report: jobReport(index, job.file, submission.submitter, submission.result)}] : []
  })
  jobs.sort((a, b) => a.report.index - b.report.index)
  for (const {job, report} of jobs) {
    const over = job.compareWith
    if (over === undefined) continue
    const baseline = jobs.find((other) => other.report.index === over)?.report.wallSeconds ?? null
    const ratio = baseline === null || report.wallSeconds === null || report.wallSeconds === 0 ? null : baseline / report.wallSeconds
    report.speedup = {over, ratio}
  }
  return jobs.map(({report}) => report)
}

function jobReport(index: number, file: string, submitter: string, result: Record<string, unknown> | undefined): JobReport {
  const tasks = submittedTasks(result)
  const rounds = Array.isArray(result?.rounds) ? (result.rounds as JobRound[]) : undefined
  const shards = rounds?.[0]?.taskIds.length
  return {
    index,
    file,
    submitter,
    tasks: tasks.length,
    ...(rounds === undefined ? {} : {rounds, shards}),
    verdict: typeof result?.verdict === 'string' ? result.verdict : null,
    testAccuracy: typeof result?.testAccuracy === 'number' ? result.testAccuracy : null,
    wallSeconds: typeof result?.wallSeconds === 'number' ? result.wallSeconds : null,
    finalCheckpoint: typeof result?.finalCheckpoint === 'string' ? (result.finalCheckpoint as Hex) : null,
  }
}
