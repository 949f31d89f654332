import {formatEther, formatUnits} from 'viem'

import type {DevnetReport} from '../buildReport.js'
import {gasPhases} from '../report/types.js'
import type {StoredRun} from './readRun.js'
import {wallSeconds} from './wallSeconds.js'

/** How a figure is measured, which decides how it is printed and how two runs' values are differenced. */
export type FigureUnit = 'count' | 'ETH' | 'gas' | 's' | 'gwei' | '% caught' | 'yes/no'

/** One headline number of a run; null when the run does not have it (no report, an older report, no tasks settled). */
export type Figure = {name: string; unit: FigureUnit; value: number | boolean | null; note?: string}

/**
 * The figures a researcher compares runs by: tasks and verdicts, slashes, disputes, the jackpot, gas per
 * phase, time per task, the price, detection per strategy and conservation. Amounts are numbers in the
 * unit named (ETH, gwei, gas), exact enough to compare; report.json keeps every wei.
 */
export function headlineFigures(run: StoredRun): Figure[] {
  const {report} = run
  if (!report) return [{name: 'every check held', unit: 'yes/no', value: null, note: run.missingReport}]
  const settled = report.tasks.filter((task) => task.status === 'Settled')
  const wall = wallSeconds(run.record)
  const figure = (name: string, unit: FigureUnit, value: Figure['value'], note?: string): Figure => (note === undefined ? {name, unit, value} : {name, unit, value, note})
  const perSettled = (total: number | null) => (total === null || settled.length === 0 ? null : total / settled.length)
  const prices = report.market.series.map((point) => Number(formatUnits(BigInt(point.price), 9)))
  return [
    figure('every check held', 'yes/no', report.ok, report.partial ? `partial: ${report.partial.reason}` : report.failures[0]),
    figure('tasks', 'count', report.tasks.length),
    figure('tasks settled', 'count', settled.length),
    figure('tasks accepted', 'count', report.tasks.filter((task) => task.verdict === 'accepted').length),
    figure('tasks rejected', 'count', report.tasks.filter((task) => task.verdict === 'rejected').length),
    figure('rejected proofs', 'count', report.tasks.reduce((sum, task) => sum + task.rejections.length, 0)),
    figure('slashes', 'count', report.slashes.length),
    figure('stake slashed', 'ETH', ether(report.slashes.reduce((sum, slash) => sum + BigInt(slash.amount), 0n))),
    figure('disputes', 'count', report.disputes.length),
    figure('jackpot paid', 'ETH', ether(BigInt(report.jackpot.paidOut))),
    ...gasFigures(report),
    figure('gas fees', 'ETH', ether(BigInt(report.conservation.gasFees))),
    figure('wall time', 's', wall),
    figure('wall time per settled task', 's', perSettled(wall)),
    figure('chain time per settled task', 's', perSettled(settled.reduce((sum, task) => sum + task.seconds.total, 0))),
    figure('price at start', 'gwei', prices.at(0) ?? null),
    figure('price at end', 'gwei', prices.at(-1) ?? null),
    ...(report.history?.detection ?? []).map((row) => {
      const decided = row.caught + row.notCaught
      const note = `${row.caught} of ${decided} caught${row.pending > 0 ? `, ${row.pending} pending` : ''}`
      return figure(`detection: ${row.label}`, '% caught', decided === 0 ? null : (100 * row.caught) / decided, note)
    }),
    figure('money conserved', 'yes/no', report.partial?.chainRead === false ? null : report.conservation.ok),
  ]
}

/** Gas of every phase and in total; null in a report written before the gas breakdown existed. */
function gasFigures(report: DevnetReport): Figure[] {
  const gas = report.history?.gas
  const byPhase = gasPhases.map((phase): Figure => {
    const entry = gas?.find((candidate) => candidate.phase === phase)
    return {name: `gas: ${phase}`, unit: 'gas', value: gas ? Number(entry?.gas ?? 0) : null}
  })
  const total = gas ? gas.reduce((sum, entry) => sum + Number(entry.gas), 0) : null
  return [...byPhase, {name: 'gas: total', unit: 'gas', value: total}]
}

function ether(wei: bigint): number {
  return Number(formatEther(wei))
}
