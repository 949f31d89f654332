import type {DevnetReport} from '../buildReport.js'
import {type CrowdOutcome, type CrowdReport, type CrowdStats, emptyStats} from './types.js'
import type {CrowdMembers} from './crowdMembers.js'
import type {Crowd} from './crowdSchema.js'

export type {CrowdReport} from './types.js'

export type CrowdReportOptions = {report: DevnetReport; members: CrowdMembers; outcome: CrowdOutcome | undefined}

/** The report's Crowd section: the crowd's tasks read from the report, its processes' summaries, its targets judged. */
export function crowdReport({report, members, outcome}: CrowdReportOptions): CrowdReport {
  const {crowd} = members
  const submitters = new Set(members.members.filter((member) => member.role === 'submitter').map((member) => member.address.toLowerCase()))
  const cheaters = new Set(members.members.filter((member) => member.strategy === 'cheater').map((member) => member.name))
  const cheaterAddresses = new Set(members.members.filter((member) => member.strategy === 'cheater').map((member) => member.address.toLowerCase()))
  const tasks = report.tasks.filter((task) => submitters.has(task.submitter.toLowerCase()))
  const settled = tasks.filter((task) => task.status === 'Settled')
  const lifecycles = lifecycleRate(report, new Set(tasks.map((task) => task.id)), settled.length)
  const processes = outcome?.processes ?? []
  const peakRssMiB = processes.map((summary) => round(summary?.peakRssMiB ?? 0))
  const stats = sumStats(processes.map((summary) => summary?.stats))
  const cheats = {
    proofs: stats.wrongProofs,
    rejected: tasks.reduce((sum, task) => sum + task.rejections.filter((rejection) => cheaterAddresses.has(rejection.solver.toLowerCase())).length, 0),
    caughtByWhistleblowers: report.disputes.filter((dispute) => dispute.kind === 'challenge' && dispute.outcome === 'ChallengerWon' && cheaters.has(dispute.prover)).length,
    paid: settled.filter((task) => task.verdict === 'accepted' && cheaterAddresses.has(task.solver.toLowerCase())).length,
  }
  const result: CrowdReport = {
    actors: {submitters: crowd.submitters, solvers: crowd.solvers, cheaters: crowd.cheaters, verifiers: crowd.verifiers, lazyVerifiers: crowd.lazyVerifiers, whistleblowers: crowd.whistleblowers, total: members.members.length},
    processes: crowd.processes,
    tasks: {posted: tasks.length, settled: settled.length, accepted: settled.filter((task) => task.verdict === 'accepted').length, expired: tasks.filter((task) => task.status === 'Expired').length},
    lifecycles,
    memory: {peakRssMiB, perActorMiB: round(peakRssMiB.reduce((sum, value) => sum + value, 0) / Math.max(1, members.members.length))},
    cheats,
    stats,
    wallSeconds: round(outcome?.wallSeconds ?? 0),
    failures: [],
  }
  result.failures = crowdFailures(result, crowd, processes)
  return result
}

function crowdFailures(result: CrowdReport, crowd: Crowd, processes: readonly unknown[]): string[] {
  const failures: string[] = []
  const missing = processes.filter((summary) => summary === undefined).length + Math.max(0, crowd.processes - processes.length)
  if (missing > 0) failures.push(`crowd: ${missing} of ${crowd.processes} processes ended without a summary`)
  const done = result.tasks.settled + result.tasks.expired
  if (done < crowd.tasks) failures.push(`crowd: ${done} of ${crowd.tasks} tasks settled or expired`)
  const {lifecyclesPerMinute, mibPerActor} = crowd.expect
  if (lifecyclesPerMinute !== undefined && result.lifecycles.perMinute < lifecyclesPerMinute)
    failures.push(`crowd: ${result.lifecycles.perMinute} task lifecycles per minute, expected at least ${lifecyclesPerMinute}`)
  if (mibPerActor !== undefined && result.memory.perActorMiB > mibPerActor) failures.push(`crowd: ${result.memory.perActorMiB} MiB per actor, expected at most ${mibPerActor}`)
  return failures
}

/** From the first crowd task's submission to the last settlement (the run's timeline, chain seconds). */
function lifecycleRate(report: DevnetReport, ids: ReadonlySet<string>, settled: number): CrowdReport['lifecycles'] {
  const segments = (report.history?.timeline.segments ?? []).filter((segment) => ids.has(segment.taskId))
  if (segments.length === 0 || settled === 0) return {settled, seconds: 0, perMinute: 0}
  const start = Math.min(...segments.map((segment) => segment.start))
  const end = Math.max(...segments.map((segment) => segment.end))
  const seconds = Math.max(1, end - start)
  return {settled, seconds, perMinute: round((settled * 60) / seconds)}
}

function sumStats(all: readonly (CrowdStats | undefined)[]): CrowdStats {
  const total = emptyStats()
  for (const stats of all) {
    if (!stats) continue
    for (const key of Object.keys(total) as (keyof CrowdStats)[]) if (key !== 'lastError') (total[key] as number) += stats[key] as number
    if (stats.lastError) total.lastError = stats.lastError
  }
  return total
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}
