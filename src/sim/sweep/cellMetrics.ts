import {formatEther, formatUnits} from 'viem'

import type {AccountReport, DevnetReport} from '../buildReport.js'

/** The figures a sweep charts against its parameters, each with its unit and what it measures. */
export const sweepMetrics = [
  {key: 'detectionRate', label: 'detection rate', unit: '% caught', about: "share of the adversaries' decided plays (cheating solvers, lazy or colluding verifiers, griefers) that were caught"},
  {key: 'cheaterProfit', label: 'cheater profit', unit: 'ETH per actor', about: 'mean change of wallet plus stake over the run (fees, slashes, gas) of the adversarial actors'},
  {key: 'honestProfit', label: 'honest profit', unit: 'ETH per actor', about: 'the same for the honest solvers, verifiers and whistleblowers'},
  {key: 'whistleblowerChallenges', label: 'whistleblower participation', unit: 'challenges per task', about: "whistleblowers' challenges (honest and griefing) per task of the run"},
  {key: 'price', label: 'price', unit: 'gwei per work unit', about: "mean of the market's posted price over the run"},
  {key: 'gasPerTask', label: 'gas per task', unit: 'gas', about: 'gas of every transaction of the run per settled task'},
  {key: 'timePerTask', label: 'time per task', unit: 's', about: 'chain time from submission to settlement, mean over settled tasks'},
] as const

export type SweepMetric = (typeof sweepMetrics)[number]['key']

/** One run's sweep figures; null where the run has nothing to measure (no adversary, no task settled). */
export type CellMetrics = Record<SweepMetric, number | null>

/** The sweep figures of one devnet report (docs/sweeps.md, "Figures"). */
export function cellMetrics(report: DevnetReport): CellMetrics {
  const settled = report.tasks.filter((task) => task.status === 'Settled')
  const rows = report.history?.detection ?? []
  const adversarial = rows.filter((row) => row.adversarial && row.role !== 'forced error')
  const decided = adversarial.reduce((sum, row) => sum + row.caught + row.notCaught, 0)
  const players = report.accounts.filter((account) => account.role === 'solver' || account.role === 'verifier' || account.role === 'whistleblower')
  const honest = players.filter((account) => account.strategy === 'honest')
  const cheaters = players.filter((account) => account.strategy !== undefined && account.strategy !== 'honest')
  const prices = report.market.series.map((point) => Number(formatUnits(BigInt(point.price), 9)))
  const gas = report.history?.gas.reduce((sum, entry) => sum + Number(entry.gas), 0)
  const challenges = rows.filter((row) => row.role === 'whistleblower').reduce((sum, row) => sum + row.plays, 0)
  return {
    detectionRate: decided === 0 ? null : (100 * adversarial.reduce((sum, row) => sum + row.caught, 0)) / decided,
    cheaterProfit: meanProfit(cheaters),
    honestProfit: meanProfit(honest),
    whistleblowerChallenges: report.tasks.length === 0 ? null : challenges / report.tasks.length,
    price: prices.length === 0 ? null : prices.reduce((sum, price) => sum + price, 0) / prices.length,
    gasPerTask: gas === undefined || settled.length === 0 ? null : gas / settled.length,
    timePerTask: settled.length === 0 ? null : settled.reduce((sum, task) => sum + task.seconds.total, 0) / settled.length,
  }
}

function meanProfit(accounts: readonly AccountReport[]): number | null {
  if (accounts.length === 0) return null
  const total = accounts.reduce((sum, account) => sum + BigInt(account.balanceAfter) + BigInt(account.stakeAfter) - BigInt(account.balanceBefore) - BigInt(account.stakeBefore), 0n)
  return Number(formatEther(total)) / accounts.length
}
