import type {Address} from 'viem'

import type {DevnetAccount} from '../../devnetAccounts.js'
import {moneyByAccount} from '../moneyByAccount.js'
import type {ReportContext} from '../reportContext.js'

export type AccountReport = {
  index: number
  role: DevnetAccount['role']
  /** The actor's name in logs, e.g. `solver-1`, `lazy-verifier-1`, `griefer-1`, `submitter-1`, `treasury`. */
  name: string
  /** Solvers, verifiers and whistleblowers: the strategy it played (`honest`, or an adversary from docs/adversaries.md). */
  strategy?: string
  address: Address
  /** Wallet plus the market's credit to it (payments are pulled: a credit not yet withdrawn is its money). */
  balanceBefore: string
  balanceAfter: string
  stakeBefore: string
  stakeAfter: string
  /** Stake it lost to slashes (winner share, treasury and burn together). */
  slashed: string
  /** Winner shares it received from others' slashed stakes. */
  slashGains: string
  /** Jackpot shares it won for catching forced errors. */
  jackpotWon: string
  /** Fees it was paid for accepted work, after tax. */
  feesEarned: string
  /** Training timeouts (ClaimTimedOut) and the stake they cost it. */
  timeouts: number
  timeoutSlashed: string
}

/** Every account's money before and after the run, and what moved it: slashes, jackpot, fees and timeouts. */
export function accountsSection(ctx: ReportContext): AccountReport[] {
  const {before, after, nameOf, strategyOf, timeoutsOf} = ctx
  const {slashedOf, gainsOf, jackpotOf, feesOf} = moneyByAccount(ctx.money)
  const perAccount = (pick: (address: string) => bigint) => (account: DevnetAccount) => pick(account.address.toLowerCase()).toString()
  return ctx.accounts.map((account, index) => {
    const strategy = strategyOf(account.address)
    return {
      index: account.index,
      role: account.role,
      name: nameOf(account.address),
      ...(strategy === undefined ? {} : {strategy}),
      address: account.address,
      balanceBefore: (before.accounts[index]!.wallet + before.accounts[index]!.credit).toString(),
      balanceAfter: (after.accounts[index]!.wallet + after.accounts[index]!.credit).toString(),
      stakeBefore: before.accounts[index]!.stake.toString(),
      stakeAfter: after.accounts[index]!.stake.toString(),
      slashed: perAccount(slashedOf)(account),
      slashGains: perAccount(gainsOf)(account),
      jackpotWon: perAccount(jackpotOf)(account),
      feesEarned: perAccount(feesOf)(account),
      timeouts: timeoutsOf(account.address.toLowerCase()).length,
      timeoutSlashed: timeoutsOf(account.address.toLowerCase())
        .reduce((sum, timeout) => sum + BigInt(timeout.slashed), 0n)
        .toString(),
    }
  })
}
