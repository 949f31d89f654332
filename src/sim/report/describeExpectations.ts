import type {ResolvedScenario} from '../scenario.js'

/** What the run is held to, in words, for report.md: the scenario's expectations and the protocol's own. */
export function describeExpectations(scenario: ResolvedScenario): string[] {
  const {expect} = scenario
  // A job is `count` copies, and a split copy is several tasks: the line counts jobs, which the scenario knows.
  const jobs = scenario.jobs.reduce((sum, job) => sum + job.count, 0)
  const lines = [
    ...(jobs === 0 ? [] : [`every task of the scenario's ${jobs} job${jobs === 1 ? '' : 's'} settles with verdict ${expect.verdict}`]),
    ...(expect.minTestAccuracy === undefined || jobs === 0 ? [] : [`every delivered model reaches a test accuracy of at least ${expect.minTestAccuracy}`]),
    ...expect.slashed.map((name) => `${name} is slashed`),
    ...expect.jackpotPaid.map((name) => `${name} is paid from the jackpot`),
    ...expect.timedOut.map((name) => `${name} misses a training deadline and loses stake for it`),
    ...(expect.disputes.min > 0 ? [`at least ${expect.disputes.min} dispute${expect.disputes.min === 1 ? '' : 's'}`] : []),
    ...(expect.disputes.outcomes ? [`every dispute ends ${expect.disputes.outcomes.join(' or ')}`] : []),
    ...(expect.priceRises ? ['the price rises after the first solver withdraws its offer'] : []),
    'money is conserved to the wei (wallets + contracts + gas fees)',
    'no honest actor is slashed or rejected, and no cheat is paid',
    'every settled task refunds exactly its escrow less its payments',
  ]
  return lines
}
