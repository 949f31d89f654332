import {type BalanceSnapshot, gasFeesPaid} from '../../balances.js'
import type {ReportContext} from '../reportContext.js'

/** Whether every wei is accounted for: wallets, stakes, escrow and credit at the end, plus gas fees, equal the start. */
export type ConservationReport = {
  ok: boolean
  totalBefore: string
  totalAfter: string
  gasFees: string
  /** Wei burned by slashes (still in the registry, out of every account for ever). */
  burned: string
  /** registry balance == totalStaked + totalBurned */
  registryBalanceMatchesStakes: boolean
  /** market balance == totalEscrow + jackpot + totalCredit */
  marketBalanceMatchesEscrow: boolean
}

/** The money check, to the wei, and the two contracts' own books. */
export function conservationSection({accounts, before, after, transactions}: ReportContext): ConservationReport {
  const fees = gasFeesPaid(transactions, accounts.map((account) => account.address), before.blockNumber)
  const total = (snapshot: BalanceSnapshot) =>
    snapshot.accounts.reduce((sum, account) => sum + account.wallet, 0n) + snapshot.registryBalance + snapshot.marketBalance
  const totalBefore = total(before)
  const totalAfter = total(after)
  const registryOk = after.registryBalance === after.totalStaked + after.totalBurned
  const marketOk = after.marketBalance === after.totalEscrow + after.jackpot + after.totalCredit
  return {
    ok: totalBefore === totalAfter + fees && registryOk && marketOk,
    totalBefore: totalBefore.toString(),
    totalAfter: totalAfter.toString(),
    gasFees: fees.toString(),
    burned: after.totalBurned.toString(),
    registryBalanceMatchesStakes: registryOk,
    marketBalanceMatchesEscrow: marketOk,
  }
}
