import type {CrowdReport} from './types.js'

/** The Crowd section's figures as (figure, value) pairs: report.md's table and the terminal's lines. */
export function crowdFigures(crowd: CrowdReport): [figure: string, value: string][] {
  const {actors, tasks, lifecycles, memory, cheats, stats} = crowd
  return [
    ['actors', `${actors.total} in ${crowd.processes} processes: ${actors.submitters} submitters, ${actors.solvers} solvers (${actors.cheaters} cheating), ${actors.verifiers} verifiers (${actors.lazyVerifiers} lazy), ${actors.whistleblowers} whistleblowers`],
    ['tasks', `${tasks.posted} posted, ${tasks.settled} settled (${tasks.accepted} accepted), ${tasks.expired} expired`],
    ['task lifecycles per minute', `${lifecycles.perMinute} (${lifecycles.settled} settled in ${lifecycles.seconds} s of chain time)`],
    ['memory per actor', `${memory.perActorMiB} MiB (process peaks ${memory.peakRssMiB.join(', ')} MiB)`],
    ['wrong proofs', `${cheats.proofs} committed: ${cheats.rejected} rejected by verifiers, ${cheats.caughtByWhistleblowers} caught by whistleblowers, ${cheats.paid} paid`],
    ['moves', `${stats.claims} claims (${stats.lostClaims} lost races), ${stats.verifications} verifications, ${stats.rechecks} re-checks, ${stats.challenges} challenges, ${stats.timeouts} games won by timeout, ${stats.errors} failed moves`],
    ['wall time', `${crowd.wallSeconds} s`],
  ]
}
