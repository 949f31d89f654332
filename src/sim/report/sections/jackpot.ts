import type {ReportContext} from '../reportContext.js'

export type JackpotReport = {before: string; after: string; funded: string; taxIn: string; paidOut: string; payouts: {taskId: string; catcher: string; amount: string}[]}

/** The jackpot before and after, what funded it, and every payout for a caught forced error. */
export function jackpotSection({before, after, money, nameOf}: ReportContext): JackpotReport {
  return {
    before: before.jackpot.toString(),
    after: after.jackpot.toString(),
    funded: money.funded.toString(),
    taxIn: money.taxIn.toString(),
    paidOut: money.payouts.reduce((sum, payout) => sum + payout.amount, 0n).toString(),
    payouts: money.payouts.map((payout) => ({taskId: payout.taskId, catcher: nameOf(payout.catcher), amount: payout.amount.toString()})),
  }
}
