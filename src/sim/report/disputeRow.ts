import type {DisputeReport} from '../buildReport.js'

/** The columns of one dispute in every rendering of the report (the text summary and report.md). */
export const disputeColumns = ['dispute', 'task', 'kind', 'prover', 'challenger', 'outcome', 'by', 'rounds', 'pinpoint', 'gas', 'seconds'] as const

/** One dispute as table cells, in the order of {@link disputeColumns}. */
export function disputeRow(dispute: DisputeReport): string[] {
  const where = dispute.element === 0 ? `step ${dispute.step}` : `step ${dispute.step}, element ${dispute.element}${dispute.kernel ? ` (${dispute.kernel})` : ''}`
  const pinpoint = dispute.question === 'None' ? where : `${where}, ${dispute.question}`
  return [dispute.id, dispute.taskId, dispute.kind, dispute.prover, dispute.challenger, dispute.outcome, dispute.reason, String(dispute.rounds), pinpoint, dispute.gasUsed, String(dispute.seconds)]
}
