import type {ReportContext} from '../reportContext.js'

/** One slash: whose locked stake, how much, and where it went (docs/disputes.md, "Money"). */
export type SlashReport = {taskId: string; account: string; winner: string | null; amount: string; toWinner: string; toTreasury: string; burned: string}

/** Every slash, with the accounts named. */
export function slashesSection({money, nameOf}: ReportContext): SlashReport[] {
  return money.slashes.map((slash) => ({
    taskId: slash.taskId,
    account: nameOf(slash.account),
    winner: slash.winner === null ? null : nameOf(slash.winner),
    amount: slash.amount.toString(),
    toWinner: slash.toWinner.toString(),
    toTreasury: slash.toTreasury.toString(),
    burned: slash.burned.toString(),
  }))
}
