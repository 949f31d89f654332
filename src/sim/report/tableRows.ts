import {formatEther, formatUnits} from 'viem'

import type {DisputeReport, TaskReport} from '../buildReport.js'

/** The columns of one dispute in every rendering of the report (the text summary and report.md). */
export const disputeColumns = ['dispute', 'task', 'kind', 'prover', 'challenger', 'outcome', 'by', 'rounds', 'pinpoint', 'gas', 'seconds'] as const

/** One dispute as table cells, in the order of {@link disputeColumns}. */
export function disputeRow(dispute: DisputeReport): string[] {
  const where = dispute.element === 0 ? `step ${dispute.step}` : `step ${dispute.step}, element ${dispute.element}${dispute.kernel ? ` (${dispute.kernel})` : ''}`
  const pinpoint = dispute.question === 'None' ? where : `${where}, ${dispute.question}`
  return [dispute.id, dispute.taskId, dispute.kind, dispute.prover, dispute.challenger, dispute.outcome, dispute.reason, String(dispute.rounds), pinpoint, dispute.gasUsed, String(dispute.seconds)]
}

/** The columns of one task's money in every rendering of the report. */
export const ledgerColumns = ['task', 'work units', 'price (gwei/WU)', 'escrow (ETH)', 'solver', 'verifier', 'tax', 'from escrow', 'refunded', 'refund = escrow - paid'] as const

/** One task's escrow, payments and refund as table cells (ETH, the price in gwei per work unit). */
export function ledgerRow(task: TaskReport, unbalanced = 'NO'): string[] {
  const {ledger} = task
  const settled = ['Settled', 'Expired'].includes(task.status)
  return [
    task.id,
    task.workUnits,
    ledger.price === '0' ? '-' : formatUnits(BigInt(ledger.price), 9),
    ...[task.escrow, ledger.solverPaid, ledger.verifierPaid, ledger.tax, ledger.fromEscrow, ledger.refunded].map((wei) => formatEther(BigInt(wei))),
    settled ? (ledger.balanced ? 'yes, to the wei' : unbalanced) : 'open',
  ]
}
