import {formatEther} from 'viem'

import {defaultMarketParams, defaultProtocolParams} from '../chain/deployContracts.js'

/**
 * Everything the expected value of cheating depends on besides the job itself (docs/economics.md). Amounts
 * are ETH (decimal numbers), shares are basis points or fractions as named. The defaults are the shipped
 * ones: the contracts' deploy defaults and the default devnet scenario's jackpot seed and whistleblower.
 */
export type EconomicsParams = {
  protocol: {
    /** Solver stake locked per task, slashed whole when its proof is rejected (ETH). */
    solverStake: number
    /** Verifier stake, slashed when it accepts a forced error (ETH). */
    verifierStake: number
    /** Chance that a claim is a forced error, in basis points. */
    forcedErrorBps: number
    /** Tax on every reward, into the jackpot, in basis points. */
    taxBps: number
    /** Most one forced error pays its catchers (ETH). */
    jackpotCap: number
    /** Jackpot held when the forced error is revealed (ETH): the default devnet seeds 1. */
    jackpot: number
  }
  market: {
    /** The price a claim pays per work unit (ETH), at most the job's payment.maxPrice. */
    price: number
    /** Verifier fee as a share of the solver's reward, in basis points. */
    verifierFeeBps: number
  }
  verification: {
    /** Segments a verifier replays; 0 keeps the job's verification.segments. */
    segments: number
    /** Independent verifications of one proof (the market takes one per attempt). */
    verifiers: number
  }
  whistleblowers: {
    /** Whistleblowers available; how many re-check is decided by their payout rule (whistleblowerRule). */
    count: number
    /** A whistleblower's cost to re-check one task (ETH): the shipped `gensyn challenge` counts none. */
    checkCost: number
    /** Segments a whistleblower replays of a proof with more than 8 (all of them up to 8). */
    segmentsToCheck: number
  }
  /** The compute cost of a work unit as a share of the price (1: a competitive market, the price is the cost). */
  costShare: number
}

const eth = (wei: bigint) => Number(formatEther(wei))

export const defaultEconomicsParams: Readonly<EconomicsParams> = Object.freeze({
  protocol: {
    solverStake: eth(defaultProtocolParams.solverStake),
    verifierStake: eth(defaultProtocolParams.verifierStake),
    forcedErrorBps: defaultProtocolParams.forcedErrorBps,
    taxBps: defaultProtocolParams.taxBps,
    jackpotCap: eth(defaultProtocolParams.jackpotCap),
    jackpot: 1,
  },
  market: {price: eth(defaultMarketParams.initialPrice), verifierFeeBps: defaultMarketParams.verifierFeeBps},
  verification: {segments: 0, verifiers: 1},
  whistleblowers: {count: 1, checkCost: 0, segmentsToCheck: 2},
  costShare: 1,
})

/** The bounds of each parameter, by its dotted path: [min, max, integer?]. */
export const economicsParamBounds: Readonly<Record<string, readonly [number, number, boolean]>> = {
  'protocol.solverStake': [0, 1e9, false],
  'protocol.verifierStake': [0, 1e9, false],
  'protocol.forcedErrorBps': [0, 10_000, true],
  'protocol.taxBps': [0, 10_000, true],
  'protocol.jackpotCap': [0, 1e9, false],
  'protocol.jackpot': [0, 1e9, false],
  'market.price': [0, 1e6, false],
  'market.verifierFeeBps': [0, 10_000, true],
  'verification.segments': [0, 1e6, true],
  'verification.verifiers': [1, 100, true],
  'whistleblowers.count': [0, 1000, true],
  'whistleblowers.checkCost': [0, 1e9, false],
  'whistleblowers.segmentsToCheck': [1, 1e6, true],
  costShare: [0, 100, false],
}

/** A deep copy of the defaults, to be changed by setEconomicsParam. */
export function economicsDefaults(): EconomicsParams {
  return structuredClone(defaultEconomicsParams) as EconomicsParams
}
