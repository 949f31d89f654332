import type {MoneyEvents} from './readMoneyEvents.js'

/** Per lowercase address, in wei: stake slashed, winner shares of others' slashes, jackpot won, fees earned. */
export type MoneyByAccount = Record<'slashedOf' | 'gainsOf' | 'jackpotOf' | 'feesOf', (address: string) => bigint>

/** Sums the market's money events by the account they moved money to or from. */
export function moneyByAccount(money: MoneyEvents): MoneyByAccount {
  const sumBy = <T>(items: readonly T[], key: (item: T) => string | null, amount: (item: T) => bigint) => (address: string) =>
    items.reduce((sum, item) => (key(item)?.toLowerCase() === address ? sum + amount(item) : sum), 0n)
  return {
    slashedOf: sumBy(money.slashes, (slash) => slash.account, (slash) => slash.amount),
    gainsOf: sumBy(money.slashes, (slash) => slash.winner, (slash) => slash.toWinner),
    jackpotOf: sumBy(money.payouts, (payout) => payout.catcher, (payout) => payout.amount),
    feesOf: sumBy(money.fees, (fee) => fee.to, (fee) => fee.amount),
  }
}
