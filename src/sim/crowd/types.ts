import type {Address, Hex} from 'viem'

// The crowd's shared types: a member, what its processes count and report, and the report's section.

export type CrowdRole = 'submitter' | 'solver' | 'verifier' | 'whistleblower'
export type CrowdStrategy = 'honest' | 'cheater' | 'lazy'

/** One simulated actor: an account and what it plays. */
export type CrowdMember = {name: string; role: CrowdRole; strategy: CrowdStrategy; address: Address; privateKey: Hex}

/** What a crowd process counts as its actors play, summed over them (docs/scenarios.md, "Crowds"). */
export type CrowdStats = {
  posted: number
  settles: number
  claims: number
  lostClaims: number
  proofs: number
  wrongProofs: number
  verifications: number
  rejections: number
  lazyAccepts: number
  rechecks: number
  challenges: number
  statesPosted: number
  timeouts: number
  errors: number
  lastError?: string
}

export function emptyStats(): CrowdStats {
  return {posted: 0, settles: 0, claims: 0, lostClaims: 0, proofs: 0, wrongProofs: 0, verifications: 0, rejections: 0, lazyAccepts: 0, rechecks: 0, challenges: 0, statesPosted: 0, timeouts: 0, errors: 0}
}

export type CrowdProcessSummary = {
  index: number
  members: number
  stats: CrowdStats
  /** This process's peak resident memory (getrusage's maxrss). */
  peakRssMiB: number
  seconds: number
}

/** How the crowd's processes ended: each one's summary (absent for one that never printed it). */
export type CrowdOutcome = {processes: (CrowdProcessSummary | undefined)[]; members: number; wallSeconds: number}

/** The report's Crowd section (docs/report.md): what scale mode measures. */
export type CrowdReport = {
  actors: {submitters: number; solvers: number; cheaters: number; verifiers: number; lazyVerifiers: number; whistleblowers: number; total: number}
  processes: number
  tasks: {posted: number; settled: number; accepted: number; expired: number}
  /** Tasks settled per minute of chain time, from the first crowd task's submission to the last one's settlement. */
  lifecycles: {settled: number; seconds: number; perMinute: number}
  /** Each process's peak resident memory, and their sum over the crowd's actors. */
  memory: {peakRssMiB: number[]; perActorMiB: number}
  cheats: {proofs: number; rejected: number; caughtByWhistleblowers: number; paid: number}
  /** What the crowd's actors did, summed over its processes. */
  stats: CrowdStats
  wallSeconds: number
  /** What the crowd missed: a process that failed, a task not settled, a target not met. */
  failures: string[]
}

