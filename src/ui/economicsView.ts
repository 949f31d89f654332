import type {JobEconomics} from '../economics/index.js'
import {renderTable} from './renderTable.js'

const eth = (wei: number) => `${(wei / 1e18).toFixed(4)} ETH`
const probability = (p: number) => p.toFixed(3)

/** The economics table of one job: a row per strategy, amounts in ETH (docs/economics.md). */
export function economicsView(report: JobEconomics, path: string): string {
  const {amounts, params} = report
  const head = [
    `${report.job} (${path}): ${amounts.workUnits} work units at ${(amounts.priceWei / 1e18).toPrecision(3)} ETH: solver reward ${eth(amounts.solverReward)}, verifier ${eth(amounts.verifierReward)}`,
    `plan: ${amounts.sampled} of ${amounts.segmentCount} segments replayed by ${params.verification.verifiers} verifier(s); ${report.activeWhistleblowers} of ${params.whistleblowers.count} whistleblower(s) re-check ${amounts.checked}; forced errors ${params.protocol.forcedErrorBps} bps; stakes ${params.protocol.solverStake} / ${params.protocol.verifierStake} ETH`,
    '',
  ]
  const rows = report.rows.map((row) => [
    row.strategy,
    row.computeFraction.toFixed(2),
    probability(row.verifierDetection),
    row.measured ? `${row.measured.rejected}/${row.measured.decided}` : '-',
    probability(row.whistleblowerDetection),
    probability(row.caught),
    eth(row.saved),
    eth(row.atRisk),
    eth(row.expectedProfit),
    row.breakEvenStake === null ? 'none' : `${eth(row.breakEvenStake)} (${row.stake})`,
  ])
  const table = renderTable(['STRATEGY', 'COMPUTE', 'P(VERIFIER)', 'MEASURED', 'P(WHISTLE)', 'P(CAUGHT)', 'SAVED', 'AT RISK', 'E[PROFIT]', 'BREAK-EVEN STAKE'], rows)
  return [...head, table, '', 'E[PROFIT] = SAVED - P(CAUGHT) × AT RISK, against honest play; MEASURED: docs/benchmarks.md (bench/verification.ts)'].join('\n')
}
