import type {JobSpec} from '../ml/spec/schema.js'
import type {EconomicsParams} from './economicsParams.js'
import {strategyEconomics, type StrategyEconomics} from './strategyEconomics.js'
import {taskAmounts, type TaskAmounts} from './taskAmounts.js'
import {activeWhistleblowers} from './whistleblowerRule.js'

export type JobEconomics = {
  job: string
  params: EconomicsParams
  amounts: TaskAmounts
  /** Whistleblowers the payout rule keeps re-checking (of params.whistleblowers.count). */
  activeWhistleblowers: number
  rows: StrategyEconomics[]
}

const toWei = (eth: number) => BigInt(Math.round(eth * 1e18))

/** The economics of cheating on one task of `spec` (docs/economics.md). */
export function jobEconomics(spec: JobSpec, params: EconomicsParams): JobEconomics {
  const amounts = taskAmounts(spec, params)
  const {protocol, whistleblowers} = params
  const active = activeWhistleblowers(
    {jackpot: toWei(protocol.jackpot), jackpotCap: toWei(protocol.jackpotCap), forcedErrorBps: protocol.forcedErrorBps, checkCost: toWei(whistleblowers.checkCost)},
    BigInt(whistleblowers.count),
  )
  return {job: spec.name, params, amounts, activeWhistleblowers: Number(active), rows: strategyEconomics(amounts, params, Number(active))}
}
