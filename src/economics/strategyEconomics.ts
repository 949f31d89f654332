import {strategyNames, type StrategyName} from '../adversary/strategies.js'
import type {EconomicsParams} from './economicsParams.js'
import {measuredDetection, type MeasuredDetection} from './measuredDetection.js'
import {strategyDetection} from './strategyDetection.js'
import type {TaskAmounts} from './taskAmounts.js'

/** One adversary's expected value per task against playing honestly (amounts in wei, float64). */
export type StrategyEconomics = {
  /** A solver strategy (`gensyn solve --strategy`), `lazy verifier` or `colluding pair` (a colluding verifier and its random-weights partner). */
  strategy: StrategyName | 'lazy verifier' | 'colluding pair'
  role: 'solver' | 'verifier' | 'solver + verifier'
  computeFraction: number
  /** P(caught) by one verifier, by one whistleblower, and in all (verifiers, active whistleblowers and forced errors together). */
  verifierDetection: number
  whistleblowerDetection: number
  caught: number
  /** Compute it saves against honest play; what it loses when caught (rewards forfeited and stake slashed). */
  saved: number
  atRisk: number
  /** saved - caught × atRisk: below 0, cheating pays less than honest play. */
  expectedProfit: number
  /** The stake at which expectedProfit is 0 (null: it is never caught, so no stake is enough), and which stake that is. */
  breakEvenStake: number | null
  stake: 'solverStake' | 'verifierStake' | 'solverStake + verifierStake'
  measured: MeasuredDetection | null
  basis: string
}

const weiPerEth = 1e18

/** P(at least one of independent checks catches it). */
const anyOf = (checks: readonly [probability: number, times: number][]) => 1 - checks.reduce((miss, [p, times]) => miss * (1 - p) ** times, 1)

function row(base: Omit<StrategyEconomics, 'expectedProfit' | 'breakEvenStake'>, forfeited: number): StrategyEconomics {
  const expectedProfit = base.saved - base.caught * base.atRisk
  // saved - caught × (forfeited + S) = 0  =>  S = saved / caught - forfeited
  const breakEvenStake = base.caught === 0 ? null : Math.max(0, base.saved / base.caught - forfeited)
  return {...base, expectedProfit, breakEvenStake}
}

/**
 * Every strategy of the adversary library at one task's amounts (docs/economics.md, "The model"): the solver
 * strategies, the lazy verifier and a colluding pair. `whistleblowers` is how many re-check an accepted task.
 */
export function strategyEconomics(amounts: TaskAmounts, params: EconomicsParams, whistleblowers: number): StrategyEconomics[] {
  const proof = {segmentCount: amounts.segmentCount, schedule: amounts.schedule}
  const solverStake = params.protocol.solverStake * weiPerEth
  const verifierStake = params.protocol.verifierStake * weiPerEth
  const forcedError = params.protocol.forcedErrorBps / 10_000
  const jackpotShare = Math.min(params.protocol.jackpot, params.protocol.jackpotCap) * weiPerEth
  const solvers = strategyNames.map((strategy) => {
    const detection = strategyDetection(strategy, proof, amounts.sampled, amounts.checked)
    const caught = anyOf([
      [detection.verifier, params.verification.verifiers],
      [detection.whistleblower, whistleblowers],
    ])
    return row(
      {
        strategy,
        role: 'solver',
        computeFraction: detection.computeFraction,
        verifierDetection: detection.verifier,
        whistleblowerDetection: detection.whistleblower,
        caught,
        saved: (1 - detection.computeFraction) * amounts.trainingCost,
        atRisk: amounts.solverNet + solverStake,
        stake: 'solverStake',
        measured: measuredDetection[strategy],
        basis: detection.basis,
      },
      amounts.solverNet,
    )
  })
  // A lazy verifier is caught by the forced errors it accepts (whistleblowers share that jackpot, they do not add
  // to the chance); it loses its stake and the jackpot an honest verifier would have won by rejecting.
  const lazy = row(
    {
      strategy: 'lazy verifier',
      role: 'verifier',
      computeFraction: 0,
      verifierDetection: 0,
      whistleblowerDetection: 0,
      caught: forcedError,
      saved: amounts.verifyCost,
      atRisk: verifierStake + jackpotShare,
      stake: 'verifierStake',
      measured: null,
      basis: 'caught by forced errors only (forcedErrorBps)',
    },
    jackpotShare,
  )
  // A colluding verifier waves its partner's random-weights proof through: only whistleblowers' replays catch it.
  const partner = strategyDetection('random-weights', proof, amounts.sampled, amounts.checked)
  const pair = row(
    {
      strategy: 'colluding pair',
      role: 'solver + verifier',
      computeFraction: 0,
      verifierDetection: 0,
      whistleblowerDetection: partner.whistleblower,
      caught: anyOf([[partner.whistleblower, whistleblowers]]),
      saved: amounts.trainingCost + amounts.verifyCost,
      atRisk: amounts.solverNet + amounts.verifierNet + solverStake + verifierStake,
      stake: 'solverStake + verifierStake',
      measured: null,
      basis: 'caught by whistleblower re-checks only',
    },
    amounts.solverNet + amounts.verifierNet,
  )
  return [...solvers, lazy, pair]
}
