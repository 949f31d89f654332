import type {TopLevelSpec} from 'vega-lite'

import type {DevnetReport} from '../../buildReport.js'
import {emptyChart} from './renderSvg.js'

const roleOrder = ['treasury', 'submitter', 'solver', 'verifier', 'whistleblower']

/**
 * Balances over time per role: each role's wallets + stakes summed, as the change since the first sample
 * in ETH (every account starts with the same large balance, so absolute values would hide the run).
 */
export function balancesChart(report: DevnetReport): TopLevelSpec {
  const title = 'Balances over time per role (wallet + stake, change since start)'
  const history = report.history?.balances
  const first = history?.samples[0]
  if (!history || !first) return emptyChart(title, 'no balance history in this report')
  const roles = roleOrder.filter((role) => history.accounts.some((account) => account.role === role))
  const holdings = (sample: typeof first, role: string) =>
    history.accounts.reduce((sum, account, index) => (account.role === role ? sum + BigInt(sample.wallet[index] ?? '0') + BigInt(sample.stake[index] ?? '0') : sum), 0n)
  const values = history.samples.flatMap((sample) =>
    roles.map((role) => ({seconds: sample.seconds, block: Number(sample.block), role, eth: weiToEth(holdings(sample, role) - holdings(first, role))})),
  )
  return {
    title,
    width: 560,
    height: 280,
    data: {values},
    mark: {type: 'line', point: {size: 18}, strokeWidth: 2},
    encoding: {
      x: {field: 'seconds', type: 'quantitative', title: 'chain time (s)'},
      y: {field: 'eth', type: 'quantitative', title: 'change (ETH)'},
      color: {field: 'role', type: 'nominal', title: 'role', scale: {domain: roles}},
    },
  }
}

/** Wei to ETH as a float: exact enough for a chart (the tables and report.json keep the wei). */
export function weiToEth(wei: bigint): number {
  return Number(wei) / 1e18
}
